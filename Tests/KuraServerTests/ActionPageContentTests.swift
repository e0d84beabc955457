import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// What the action page says and where it leads: its language (the link's `lang`, else `Accept-Language`), the
/// password rules before submitting, a page for a used, expired or bogus link, and `continueUrl` only on allowed
/// origins.
extension ActionPageHeadersTests {
    static func requestReset(
        _ kura: TestKura, _ email: String, continueURL: String? = nil, language: String? = nil
    ) throws -> HTTPResponse {
        var body: [String: Any] = ["email": email]
        if let continueURL { body["continueUrl"] = continueURL }
        return try kura.request(
            "POST", "/api/auth/password-reset", json: body, headers: language.map { [("Accept-Language", $0)] } ?? [],
            auth: .none)
    }

    @Test("the link carries the mail's language and the page speaks it; without it, the browser's")
    func language() throws {
        try withAuthKura { kura in
            _ = try kura.signUp("jun@example.com")
            #expect(try Self.requestReset(kura, "jun@example.com", language: "ja-JP,ja;q=0.9").status == 200)
            let link = try kura.heldLink(to: "jun@example.com", mode: "resetPassword")
            #expect(queryItem(link, "lang") == "ja")
            let japanese = try kura.open(link)
            #expect(japanese.status == 200)
            #expect(japanese.body.contains(#"<html lang="ja">"#))
            #expect(japanese.body.contains("新しいパスワードを設定"))
            #expect(japanese.body.contains("6文字以上"), "the rules before submitting")
            #expect(japanese.body.contains(#"hreflang="en">English</a>"#), "a switch to English")
            let fields = formFields(japanese.body)
            #expect(fields["lang"] == "ja", "the result page keeps the language")

            let code = queryItem(link, "code") ?? ""
            let target = "/auth/action?mode=resetPassword&code=\(code)"
            let browser = try kura.request("GET", target, headers: [("Accept-Language", "ja")], auth: .none)
            #expect(browser.body.contains(#"<html lang="ja">"#), "Accept-Language without lang")
            let english = try kura.request(
                "GET", target + "&lang=en", headers: [("Accept-Language", "ja")], auth: .none)
            #expect(english.body.contains(#"<html lang="en">"#), "lang wins over Accept-Language")
            #expect(english.body.contains("Choose a new password"))
            #expect(english.body.contains("At least 6 characters"))
            #expect(english.body.contains(#"class="reveal""#), "a show-password toggle")

            let done = try kura.submitActionForm([
                ("mode", "resetPassword"), ("code", code), ("lang", "ja"), ("newPassword", "new-password-1"),
            ])
            #expect(done.status == 200)
            #expect(done.body.contains("パスワードを変更しました"))
        }
    }

    @Test("a used, bogus, incomplete or mismatched link gets a page that says so, in the page's language")
    func unusableLinks() throws {
        try withAuthKura { kura in
            _ = try kura.signUp("uma@example.com")
            let verify = try kura.heldLink(to: "uma@example.com", mode: "verifyEmail")
            let code = queryItem(verify, "code") ?? ""

            let bogus = try kura.request("GET", "/auth/action?mode=resetPassword&code=bogus&lang=en", auth: .none)
            #expect(bogus.status == 400)
            #expect(bogus.body.contains("This link can no longer be used"))
            #expect(bogus.body.contains("INVALID_OOB_CODE"))
            #expect(!bogus.body.contains("<form"))

            let incomplete = try kura.request("GET", "/auth/action?mode=verifyEmail&lang=ja", auth: .none)
            #expect(incomplete.status == 400)
            #expect(incomplete.body.contains("リンクが正しくありません"))

            let mismatched = try kura.request("GET", "/auth/action?mode=resetPassword&code=\(code)", auth: .none)
            #expect(mismatched.status == 400, "a verification code is not a reset code")
            #expect(!mismatched.body.contains("<form"))

            let page = try kura.open(verify)
            #expect(page.status == 200)
            #expect(page.body.contains("uma@example.com"), "the page says which address it confirms")
            #expect(try kura.submitActionForm([("mode", "verifyEmail"), ("code", code)]).status == 200)
            let used = try kura.open(verify)
            #expect(used.status == 400)
            #expect(used.body.contains("already used"))
        }
    }

    @Test(
        "continueUrl: the server's own origin and cors.origins are accepted, others refused, and the page drops an edited one"
    )
    func continueURL() throws {
        try withAuthKura(configure: { try $0.set("cors.origins", "https://app.example.com") }) { kura in
            _ = try kura.signUp("cal@example.com")
            let own = "http://127.0.0.1:\(kura.port)/todo/?list=1&x=%E3%81%82"
            #expect(try Self.requestReset(kura, "cal@example.com", continueURL: own).status == 200)
            let link = try kura.heldLink(to: "cal@example.com", mode: "resetPassword")
            #expect(queryItem(link, "continueUrl") == own)
            let page = try kura.open(link)
            #expect(formFields(page.body)["continueUrl"] == own)
            let done = try kura.submitActionForm(
                formFields(page.body).map { ($0.key, $0.value) } + [("newPassword", "new-password-1")])
            #expect(done.status == 200)
            #expect(done.body.contains(#"<a class="button" href="\#(own.htmlEscapedForTest)">Back to the app</a>"#))

            #expect(
                try Self.requestReset(kura, "cal@example.com", continueURL: "https://app.example.com/done").status
                    == 200)
            #expect(
                try Self.requestReset(kura, "cal@example.com", continueURL: "http://localhost:\(kura.port)/todo/")
                    .status == 200, "the loopback interface by another name")
            expectError(
                try Self.requestReset(kura, "cal@example.com", continueURL: "https://evil.example.net/"), 400,
                .unauthorizedDomain)
            expectError(
                try Self.requestReset(kura, "cal@example.com", continueURL: "http://localhost:1/todo/"), 400,
                .unauthorizedDomain)
            for malformed in ["javascript:alert(1)", "//evil.example.net/", "https://user@app.example.com/", "x"] {
                expectError(
                    try Self.requestReset(kura, "cal@example.com", continueURL: malformed), 400,
                    .invalidContinueURI)
            }
            // The signed-in form of the verification mail, and Firebase's sendOobCode, check it too.
            let session = try kura.signIn("cal@example.com", "new-password-1")
            expectError(
                try kura.request(
                    "POST", "/api/auth/verify-email", json: ["continueUrl": "https://evil.example.net/"],
                    token: session.idToken), 400, .unauthorizedDomain)

            // A link whose continueUrl was edited: the page shows no way there.
            let fresh = try kura.heldLink(to: "cal@example.com", mode: "resetPassword")  // the newest
            let code = queryItem(fresh, "code") ?? ""
            let edited = try kura.request(
                "GET", "/auth/action?mode=resetPassword&code=\(code)&continueUrl=https%3A%2F%2Fevil.example.net%2F",
                auth: .none)
            #expect(edited.status == 200)
            #expect(!edited.body.contains("evil.example.net"))
        }
    }

    @Test("auth.maxContinueURLBytes bounds continueUrl")
    func continueURLLimit() throws {
        try withAuthKura(configure: { try $0.set("auth.maxContinueURLBytes", "60") }) { kura in
            _ = try kura.signUp("lim@example.com")
            let base = "http://127.0.0.1:\(kura.port)/"
            let fits = base + String(repeating: "a", count: 60 - base.utf8.count)
            #expect(try Self.requestReset(kura, "lim@example.com", continueURL: fits).status == 200)
            expectError(
                try Self.requestReset(kura, "lim@example.com", continueURL: fits + "a"), 400, .invalidContinueURI)
        }
    }

    @Test("a plain kura serve shows a styled notice at / in the browser's language, and serves a favicon")
    func homePage() throws {
        try withTestKura { kura in
            let english = try kura.request("GET", "/", auth: .none)
            #expect(english.status == 200)
            #expect(english.body.contains(#"<link rel="stylesheet" href="/auth/action.css">"#))
            #expect(english.body.contains("is running"))
            let japanese = try kura.request("GET", "/", headers: [("Accept-Language", "ja")], auth: .none)
            #expect(japanese.body.contains("が動いています"))
            let icon = try kura.request("GET", "/favicon.ico", auth: .none)
            #expect(icon.status == 200)
            #expect(icon.header("Content-Type") == "image/svg+xml")
        }
    }
}

extension String {
    /// As the pages escape attribute values.
    fileprivate var htmlEscapedForTest: String {
        replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
