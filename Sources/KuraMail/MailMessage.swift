import KuraCore
import KuraModel

/// Identifies one mail in the outbox: 20 random base62 characters, stable across retries and restarts.
public struct MailID: Hashable, Sendable, CustomStringConvertible {
    /// The identifier as stored and shown by `GET /api/admin/outbox`.
    public let rawValue: String

    /// Wraps an identifier read back from the outbox or an API path.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A new random identifier.
    public static func random() -> MailID { MailID(rawValue: SecureRandom.base62(20)) }

    public var description: String { rawValue }
}

/// One mail to send: a recipient, a subject and the same content as plain text and HTML.
///
/// Built by `MailTemplates` (or by hand). The sender comes from `MailConfiguration.from`; the RFC 5322 text is
/// rendered when the mail is enqueued, so retries send byte-identical mail with the same `Message-ID`.
public struct MailMessage: Sendable, Equatable {
    /// Recipient address (`user@example.com`), without a display name.
    public var to: String
    /// Subject line; any Unicode (it is sent as an RFC 2047 encoded-word when not plain ASCII).
    public var subject: String
    /// The text/plain part.
    public var text: String
    /// The text/html part.
    public var html: String
    /// The link the mail exists for (verification, reset…). Logged when no SMTP relay is configured, so a
    /// developer can follow it, and listed with the outbox entry.
    public var actionLink: String?

    public init(to: String, subject: String, text: String, html: String, actionLink: String? = nil) {
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.actionLink = actionLink
    }

    /// Throws 400 `INVALID_ARGUMENT` unless `to` is a single bare address: no spaces, controls, commas or angle
    /// brackets, so it can go into a header and the SMTP envelope without injection.
    public func validate() throws {
        guard MailAddress.isValidBareAddress(to) else {
            throw APIError.badRequest("invalid recipient address for mail")
        }
    }
}

/// A mailbox `Display Name <address>` split into its parts.
public struct MailAddress: Sendable, Equatable {
    /// Display name, possibly empty.
    public var name: String
    /// The bare address used for the SMTP envelope.
    public var address: String

    public init(name: String = "", address: String) {
        self.name = name
        self.address = address
    }

    /// Parses `Name <addr@host>`, `"Name" <addr@host>`, `<addr@host>` or `addr@host`; `nil` if the address part
    /// is not a valid bare address.
    public init?(parsing text: String) {
        let trimmed = text.trimmingSpaces()
        if trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") {
            var name = String(trimmed[..<open]).trimmingSpaces()
            if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") {
                name = String(name.dropFirst().dropLast())
            }
            let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            guard Self.isValidBareAddress(address), !name.contains(where: { $0.isNewline }) else { return nil }
            self.init(name: name, address: address)
        } else {
            guard Self.isValidBareAddress(trimmed) else { return nil }
            self.init(address: trimmed)
        }
    }

    /// `local@domain` with no whitespace, controls or characters that would break a header or an SMTP command.
    static func isValidBareAddress(_ address: String) -> Bool {
        guard address.utf8.count <= 254, let at = address.lastIndex(of: "@") else { return false }
        let local = address[..<at]
        let domain = address[address.index(after: at)...]
        guard !local.isEmpty, !domain.isEmpty else { return false }
        return address.unicodeScalars.allSatisfy { scalar in
            scalar.value > 0x20 && scalar.value != 0x7F && !"<>,;\"()[]\\".unicodeScalars.contains(scalar)
        }
    }
}
