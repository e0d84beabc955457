import Foundation
import KuraCore
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Account mail end to end: a real SMTP server (aiosmtpd, Tests/Support/smtp_sink.py), the links in the mails, and
/// the action page they open.
@Suite struct AuthMailTests {
    /// Waits for the sink's `count`-th mail and returns it.
    private func waitForMail(_ sink: SMTPSink, count: Int, timeout: Double = 10) throws -> JSONObject {
        let arrived = try waitUntil(timeout: timeout) { try sink.received().count >= count }
        guard arrived else { throw TestFailure("mail \(count) never reached the sink: \(try sink.received())") }
        return try sink.received()[count - 1]
    }

    /// The action link in the text part of a mail the sink received.
    private func link(in mail: JSONObject) throws -> String {
        let text = try #require(textPart(mail), "no text/plain part: \(mail)")
        return try #require(actionLink(inText: text), "no action link in: \(text)")
    }

    @Test("memo-app flow: verification mail over SMTP, link page, form, then sign-in; reset through the page")
    func memoAppFlow() throws {
        let directory = try TemporaryDirectory("mail").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let smtpPort = try TestEnvironment.freePort()
        let sink = try SMTPSink(port: smtpPort, directory: directory + "/sink")
        defer { sink.stop() }
        try withAuthKura(configure: {
            $0.auth.requireVerifiedEmail = true
            $0.mail = fastMail(port: smtpPort)
            $0.appName = "Memo"
        }) { kura in
            let signUp = try kura.request(
                "POST", "/api/auth/signup", json: ["email": "mia@example.com", "password": "memo-pass-1"], auth: .none)
            try #require(signUp.status == 201, "\(signUp)")
            // No session before the address is verified (AuthVerifiedEmailTests).
            #expect(signUp.json["idToken"] == nil, "\(signUp)")
            expectError(try kura.signInResponse("mia@example.com", "memo-pass-1"), 403, .emailNotVerified)

            // The verification mail arrives at the relay.
            let mail = try waitForMail(sink, count: 1)
            #expect(mail["rcptTos"] == ["mia@example.com"])
            #expect(mail["to"]?.stringValue == "mia@example.com")
            #expect(mail["subject"]?.stringValue?.contains("Memo") == true)
            #expect(mail["defects"] == [])
            let verifyLink = try link(in: mail)
            #expect(verifyLink.hasPrefix("http://127.0.0.1:\(kura.port)/auth/action?mode=verifyEmail&code="))
            #expect(try waitUntil(timeout: 5) { try kura.outbox().first?["status"] as? String == "sent" })

            // Opening the link shows a form and spends nothing (link scanners prefetch): open it twice.
            for _ in 0..<2 {
                let page = try kura.open(verifyLink)
                #expect(page.status == 200)
                #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
                #expect(page.body.contains("<form method=\"post\" action=\"/auth/action\">"))
                #expect(page.body.contains("Memo"))
                let fields = formFields(page.body)
                #expect(fields["mode"] == "verifyEmail")
                #expect(fields["code"] == queryItem(verifyLink, "code"))
            }
            expectError(try kura.signInResponse("mia@example.com", "memo-pass-1"), 403, .emailNotVerified)

            // Submitting the form, as the browser would, verifies the address.
            let fields = formFields(try kura.open(verifyLink).body)
            let confirmed = try kura.submitActionForm([("mode", fields["mode"]!), ("code", fields["code"]!)])
            #expect(confirmed.status == 200, "\(confirmed)")
            #expect(confirmed.body.contains("mia@example.com is confirmed"))
            let session = try kura.signIn("mia@example.com", "memo-pass-1")
            #expect(session.user["emailVerified"] as? Bool == true)
            // The form cannot be submitted twice.
            let again = try kura.submitActionForm([("mode", "verifyEmail"), ("code", fields["code"]!)])
            #expect(again.status == 400)
            #expect(again.body.contains("INVALID_OOB_CODE"))

            // Password reset, the same way.
            let reset = try kura.request(
                "POST", "/api/auth/password-reset", json: ["email": "mia@example.com"], auth: .none)
            #expect(reset.status == 200)
            let resetMail = try waitForMail(sink, count: 2)
            #expect(resetMail["rcptTos"] == ["mia@example.com"])
            let resetLink = try link(in: resetMail)
            #expect(queryItem(resetLink, "mode") == "resetPassword")
            let page = try kura.open(resetLink)
            #expect(page.status == 200)
            #expect(page.body.contains(#"name="newPassword""#))
            let resetFields = formFields(page.body)
            #expect(resetFields["mode"] == "resetPassword")
            // Nothing changed by opening the page.
            #expect(try kura.signInResponse("mia@example.com", "memo-pass-1").status == 200)

            // A too-short password is refused by the page without spending the code.
            let weak = try kura.submitActionForm([
                ("mode", "resetPassword"), ("code", resetFields["code"]!), ("newPassword", "abc"),
            ])
            #expect(weak.status == 400)
            #expect(weak.body.contains("WEAK_PASSWORD"))
            let newPassword = "new memo pass & more"
            let changed = try kura.submitActionForm([
                ("mode", "resetPassword"), ("code", resetFields["code"]!), ("newPassword", newPassword),
            ])
            #expect(changed.status == 200, "\(changed)")
            #expect(changed.body.contains("Password changed"))

            expectError(try kura.signInResponse("mia@example.com", "memo-pass-1"), 400, .invalidLoginCredentials)
            let fresh = try kura.signIn("mia@example.com", newPassword)
            #expect(try kura.me(fresh.idToken).status == 200)
            // Every session from before the reset is gone.
            for old in [session] {
                expectError(try kura.me(old.idToken), 401, .invalidIDToken)
                expectError(try kura.refresh(old.refreshToken), 400, .invalidRefreshToken)
            }
            let reused = try kura.submitActionForm([
                ("mode", "resetPassword"), ("code", resetFields["code"]!), ("newPassword", "third-password"),
            ])
            #expect(reused.status == 400)
            #expect(reused.body.contains("INVALID_OOB_CODE"))

            // Exactly two mails went out.
            #expect(try sink.received().count == 2)
            #expect(try kura.outbox("?status=sent").count == 2)
        }
    }

    @Test("relay down, then up: the mail waits with attempts and lastError, then is delivered exactly once")
    func relayDownThenUp() throws {
        let directory = try TemporaryDirectory("mail").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let smtpPort = try TestEnvironment.freePort()
        try withAuthKura(configure: { $0.mail = fastMail(port: smtpPort) }) { kura in
            let ann = try kura.signUp("ann@example.com")
            var mail: [String: Any] = [:]
            let retried = try waitUntil(timeout: 5) {
                mail = try kura.outbox().first ?? [:]
                return (mail["attempts"] as? Int ?? 0) >= 2
            }
            #expect(retried, "\(mail)")
            #expect(mail["status"] as? String == "pending")
            #expect(mail["to"] as? String == "ann@example.com")
            #expect((mail["lastError"] as? String)?.isEmpty == false, "\(mail)")
            #expect((mail["actionLink"] as? String)?.contains("mode=verifyEmail") == true)

            let sink = try SMTPSink(port: smtpPort, directory: directory + "/sink")
            defer { sink.stop() }
            let sent = try waitUntil(timeout: 10) { try kura.outbox().first?["status"] as? String == "sent" }
            let afterWait = try kura.outbox()
            #expect(sent, "\(afterWait)")
            // Give a duplicate the chance to show: several poll intervals and retry delays.
            Thread.sleep(forTimeInterval: 0.4)
            let received = try sink.received()
            #expect(received.count == 1)
            #expect(received.first?["rcptTos"] == ["ann@example.com"])
            let entry = try #require(try kura.outbox().first)
            #expect(entry["status"] as? String == "sent")
            #expect((entry["attempts"] as? Int ?? 0) >= 2)
            #expect(try kura.outbox().count == 1)

            // And the link it carries works.
            let link = try link(in: try #require(received.first))
            let code = try #require(formFields(try kura.open(link).body)["code"])
            #expect(try kura.submitActionForm([("mode", "verifyEmail"), ("code", code)]).status == 200)
            #expect((try kura.me(ann.idToken).json["user"] as? [String: Any])?["emailVerified"] as? Bool == true)
        }
    }

    @Test("held mode: the outbox shows the action link and following it verifies the account")
    func heldMode() throws {
        try withAuthKura(configure: { $0.auth.requireVerifiedEmail = true }) { kura in
            try kura.signUpWithoutSession("ann@example.com")
            expectError(try kura.signInResponse("ann@example.com", "secret-pw"), 403, .emailNotVerified)
            let mails = try kura.outbox()
            try #require(mails.count == 1)
            #expect(mails[0]["status"] as? String == "held")
            #expect(mails[0]["attempts"] as? Int == 0)
            let link = try #require(mails[0]["actionLink"] as? String)
            let page = try kura.open(link)
            #expect(page.status == 200)
            let fields = formFields(page.body)
            #expect(fields["mode"] == "verifyEmail")
            let done = try kura.submitActionForm([("mode", "verifyEmail"), ("code", fields["code"] ?? "")])
            #expect(done.status == 200, "\(done)")
            #expect(try kura.signIn("ann@example.com").user["emailVerified"] as? Bool == true)
            // Still held: nothing is ever sent without a relay.
            #expect(try kura.outbox("?status=held").count == 1)
        }
    }

    @Test("the action page: unknown modes and codes are HTML errors, GET never spends a code")
    func actionPageErrors() throws {
        try withAuthKura { kura in
            let ann = try kura.signUp("ann@example.com")
            let unknown = try kura.request("GET", "/auth/action?mode=deleteEverything&code=x", auth: .none)
            #expect(unknown.status == 400)
            #expect(unknown.header("Content-Type")?.hasPrefix("text/html") == true)
            let bogus = try kura.submitActionForm([("mode", "verifyEmail"), ("code", "bogus")])
            #expect(bogus.status == 400)
            #expect(bogus.body.contains("INVALID_OOB_CODE"))
            #expect(try kura.submitActionForm([("mode", "nope"), ("code", "x")]).status == 400)
            // A code that is no code gets the page for unusable links, and is never echoed unescaped.
            let escaped = try kura.request("GET", "/auth/action?mode=verifyEmail&code=%3Cscript%3E", auth: .none)
            #expect(escaped.status == 400)
            #expect(!escaped.body.contains("<script>"))

            // GETs of the real link, any number of them, leave the code usable by the API.
            let link = try kura.heldLink(to: "ann@example.com", mode: "verifyEmail")
            for _ in 0..<3 { #expect(try kura.open(link).status == 200) }
            #expect(try kura.request("HEAD", try pathAndQuery(link), auth: .none).status == 200)
            let confirm = try kura.request(
                "POST", "/api/auth/verify-email/confirm", json: ["code": queryItem(link, "code") ?? ""], auth: .none)
            #expect(confirm.status == 200, "\(confirm)")
            #expect((try kura.me(ann.idToken).json["user"] as? [String: Any])?["emailVerified"] as? Bool == true)
        }
    }
}
