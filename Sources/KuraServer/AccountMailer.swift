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

    /// The `continueUrl`s a mail may lead back to.
    var continueURLs: ContinueURLPolicy

    /// `continueURL` is already checked (`continueURLs.check`).
    func verification(to address: String, code: String, request: Request, continueURL: String? = nil) throws {
        let language = language(request)
        let link = self.link(mode: "verifyEmail", code: code, language: language, continueURL: continueURL)
        try mailer.enqueue(MailTemplates.verification(to: address, link: link, appName: appName, language: language))
    }

    /// `continueURL` is already checked (`continueURLs.check`).
    func passwordReset(to address: String, code: String, request: Request, continueURL: String? = nil) throws {
        let language = language(request)
        let link = self.link(mode: "resetPassword", code: code, language: language, continueURL: continueURL)
        try mailer.enqueue(MailTemplates.passwordReset(to: address, link: link, appName: appName, language: language))
    }

    func emailChange(to address: String, code: String, request: Request) throws {
        let language = language(request)
        let link = self.link(mode: "verifyEmail", code: code, language: language)
        try mailer.enqueue(MailTemplates.emailChange(to: address, link: link, appName: appName, language: language))
    }

    /// `<publicURL>/auth/action?mode=…&code=…[&lang=…][&continueUrl=…]`: codes are base64url, so they need no
    /// escaping; `lang` is the mail's language, so the page speaks it too.
    func link(mode: String, code: String, language: MailLanguage? = nil, continueURL: String? = nil) -> String {
        var base = publicURL.value
        while base.hasSuffix("/") { base.removeLast() }
        var link = "\(base)/auth/action?mode=\(mode)&code=\(code)"
        if let language { link += "&lang=\(language.rawValue)" }
        if let continueURL { link += "&continueUrl=\(Self.queryEscaped(continueURL))" }
        return link
    }

    /// `text` percent-encoded for a query value: everything but RFC 3986's unreserved characters.
    static func queryEscaped(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out += "%"
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 15)])
            }
        }
        return out
    }

    private func language(_ request: Request) -> MailLanguage {
        MailLanguage.preferred(acceptLanguage: request.headers["Accept-Language"])
    }
}
