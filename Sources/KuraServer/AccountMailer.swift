import KuraCore
import KuraHTTP
import KuraMail
import KuraModel
import Synchronization

/// The base URL of mail links: `auth.publicURL`, or this server's own address once its port is bound.
final class PublicURL: Sendable {
    private let configured: String?
    private let host: String
    private let port: Atomic<Int>

    init(configured: String?, host: String, port: Int) {
        self.configured = configured
        self.host = host
        self.port = Atomic(port)
    }

    func bound(port: Int) { self.port.store(port, ordering: .relaxed) }

    var value: String {
        if let configured { return configured }
        let shown = host.contains(":") ? "[\(host)]" : host
        return "http://\(shown):\(port.load(ordering: .relaxed))"
    }
}

/// The account mails (verification, password reset, email change): picks the language from the request's
/// `Accept-Language`, builds the action link on the public base URL and puts the mail in the durable outbox.
struct AccountMailer: Sendable {
    let mailer: Mailer
    /// Where the action page is reached from a mail client, e.g. `https://app.example.com`.
    let publicURL: PublicURL
    let appName: String

    func verification(to address: String, code: String, request: Request) throws {
        let link = self.link(mode: "verifyEmail", code: code)
        try mailer.enqueue(
            MailTemplates.verification(to: address, link: link, appName: appName, language: language(request)))
    }

    func passwordReset(to address: String, code: String, request: Request) throws {
        let link = self.link(mode: "resetPassword", code: code)
        try mailer.enqueue(
            MailTemplates.passwordReset(to: address, link: link, appName: appName, language: language(request)))
    }

    func emailChange(to address: String, code: String, request: Request) throws {
        let link = self.link(mode: "verifyEmail", code: code)
        try mailer.enqueue(
            MailTemplates.emailChange(to: address, link: link, appName: appName, language: language(request)))
    }

    /// `<publicURL>/auth/action?mode=…&code=…`; codes are base64url, so they need no escaping.
    func link(mode: String, code: String) -> String {
        var base = publicURL.value
        while base.hasSuffix("/") { base.removeLast() }
        return "\(base)/auth/action?mode=\(mode)&code=\(code)"
    }

    private func language(_ request: Request) -> MailLanguage {
        MailLanguage.preferred(acceptLanguage: request.headers["Accept-Language"])
    }
}
