import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// `/auth/action` carries a one-time code and a password form: it must not be cached, framed, leaked through the
/// Referer, sniffed as another type, or load anything but itself.
@Suite struct ActionPageHeadersTests {
    static func expectSecurityHeaders(_ response: HTTPResponse, _ what: String) {
        #expect(response.header("Cache-Control") == "no-store", "\(what): \(response.head)")
        #expect(response.header("Referrer-Policy") == "no-referrer", "\(what)")
        #expect(response.header("X-Content-Type-Options") == "nosniff", "\(what)")
        let policy = response.header("Content-Security-Policy") ?? ""
        for directive in ["default-src 'none'", "frame-ancestors 'none'", "form-action 'self'", "base-uri 'none'"] {
            #expect(policy.contains(directive), "\(what): \(policy)")
        }
    }

    @Test("every answer of the action page sends no-store, no-referrer, nosniff and a CSP that forbids framing")
    func headers() throws {
        try withAuthKura { kura in
            _ = try kura.signUp("ann@example.com")
            let link = try kura.heldLink(to: "ann@example.com", mode: "verifyEmail")
            Self.expectSecurityHeaders(try kura.open(link), "verify page")
            Self.expectSecurityHeaders(
                try kura.request("GET", "/auth/action?mode=resetPassword&code=x", auth: .none), "reset page")
            Self.expectSecurityHeaders(
                try kura.request("GET", "/auth/action?mode=nope", auth: .none), "unknown mode")
            Self.expectSecurityHeaders(
                try kura.submitActionForm([("mode", "verifyEmail"), ("code", "bogus")]), "failed action")
            Self.expectSecurityHeaders(
                try kura.submitActionForm([("mode", "verifyEmail"), ("code", queryItem(link, "code") ?? "")]),
                "done action")
        }
    }

    @Test(
        "malformed action URLs and other methods get their error with the page's security headers",
        arguments: [
            ("GET", "/auth/action?mode=%zz"), ("GET", "/auth/action?code=a&code=b"), ("GET", "/auth/action?%=x"),
            ("PUT", "/auth/action"), ("DELETE", "/auth/action?mode=verifyEmail"), ("POST", "/auth/action?mode=%G0"),
        ])
    func errorHeaders(method: String, target: String) throws {
        try withAuthKura { kura in
            let response = try kura.request(method, target, body: [], auth: .none)
            #expect(response.status == 400 || response.status == 405, "\(method) \(target): \(response.status)")
            Self.expectSecurityHeaders(response, "\(method) \(target)")
        }
    }

    @Test(
        "the page needs nothing its policy blocks: no inline style or script; stylesheet, script and icon are same-origin"
    )
    func pageFitsItsPolicy() throws {
        try withAuthKura { kura in
            _ = try kura.signUp("pam@example.com")
            _ = try kura.request("POST", "/api/auth/password-reset", json: ["email": "pam@example.com"], auth: .none)
            let page = try kura.open(try kura.heldLink(to: "pam@example.com", mode: "resetPassword"))
            #expect(page.status == 200)
            #expect(!page.body.contains("<style") && !page.body.contains("style="))
            #expect(!page.body.contains("<script>") && !page.body.contains("onclick"))
            #expect(page.body.contains(#"<link rel="stylesheet" href="/auth/action.css">"#), "\(page.body)")
            #expect(page.body.contains(#"<script src="/auth/action.js" defer></script>"#))
            #expect(page.body.contains(#"<form method="post" action="/auth/action">"#))
            let policy = page.header("Content-Security-Policy") ?? ""
            for directive in ["style-src 'self'", "script-src 'self'", "img-src 'self'"] {
                #expect(policy.contains(directive), "\(policy)")
            }
            #expect(!policy.contains("unsafe-inline"))
            for (path, type, content) in [
                ("/auth/action.css", "text/css", "font-family"), ("/auth/action.js", "text/javascript", "reveal"),
                ("/auth/favicon.svg", "image/svg+xml", "<svg"),
            ] {
                let asset = try kura.request("GET", path, auth: .none)
                #expect(asset.status == 200, "\(path)")
                #expect(asset.header("Content-Type")?.hasPrefix(type) == true, "\(path)")
                #expect(asset.header("X-Content-Type-Options") == "nosniff", "\(path)")
                #expect(asset.body.contains(content), "\(path)")
            }
        }
    }
}
