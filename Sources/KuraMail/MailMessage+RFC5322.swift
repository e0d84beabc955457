import KuraCore
import KuraModel

extension MailMessage {
    /// The complete RFC 5322 message: headers (`From`, `To`, `Subject`, `Date`, `Message-ID`, `MIME-Version`) and a
    /// `multipart/alternative` body with base64 UTF-8 text/plain and text/html parts. Lines end in CRLF.
    ///
    /// - Parameters:
    ///   - from: the sender mailbox.
    ///   - dateSeconds: seconds since the Unix epoch for the `Date` header.
    ///   - messageID: the `Message-ID` without angle brackets, e.g. `id@host`.
    ///   - boundary: the MIME boundary; must not occur in base64 text (it contains `_`, which base64 never does).
    public func rfc5322(from: MailAddress, dateSeconds: Int64, messageID: String, boundary: String) -> String {
        var out = ""
        out += "From: \(MIMEHeader.mailbox(from))\r\n"
        out += "To: \(to)\r\n"
        out += "Subject: \(MIMEHeader.encodedText(subject))\r\n"
        out += "Date: \(MIMEHeader.date(seconds: dateSeconds))\r\n"
        out += "Message-ID: <\(messageID)>\r\n"
        out += "MIME-Version: 1.0\r\n"
        out += "Content-Type: multipart/alternative; boundary=\"\(boundary)\"\r\n"
        out += "\r\n"
        for (type, content) in [("text/plain", text), ("text/html", html)] {
            out += "--\(boundary)\r\n"
            out += "Content-Type: \(type); charset=UTF-8\r\n"
            out += "Content-Transfer-Encoding: base64\r\n"
            out += "\r\n"
            out += Base64.encodeLines(Array(MIMEHeader.crlfLines(content).utf8))
        }
        out += "--\(boundary)--\r\n"
        return out
    }
}

/// Header encodings used by `MailMessage.rfc5322`.
public enum MIMEHeader {
    /// Longest input run per encoded-word: 45 bytes → 60 base64 characters, +12 for `=?UTF-8?B?…?=` stays within
    /// RFC 2047's 75-character limit.
    static let encodedWordBytes = 45

    /// `text` as is when it is short printable ASCII that cannot be mistaken for an encoded-word; otherwise RFC 2047
    /// `=?UTF-8?B?…?=` words, split on character boundaries and folded with CRLF + space.
    public static func encodedText(_ text: String) -> String {
        let plain = text.utf8.count <= 70 && !text.contains("=?") && text.utf8.allSatisfy { (0x20...0x7E).contains($0) }
        if plain { return text }
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            // Line breaks in a subject would be header injection; they become spaces.
            let bytes = character.isNewline ? [UInt8(ascii: " ")] : Array(String(character).utf8)
            if chunk.count + bytes.count > encodedWordBytes, !chunk.isEmpty {
                words.append("=?UTF-8?B?\(Base64.encode(chunk))?=")
                chunk.removeAll(keepingCapacity: true)
            }
            chunk.append(contentsOf: bytes)
        }
        if !chunk.isEmpty || words.isEmpty { words.append("=?UTF-8?B?\(Base64.encode(chunk))?=") }
        return words.joined(separator: "\r\n ")
    }

    /// `"Name" <address>`, `=?UTF-8?B?…?= <address>` for a non-ASCII name, or the bare address.
    public static func mailbox(_ mailbox: MailAddress) -> String {
        if mailbox.name.isEmpty { return mailbox.address }
        let asciiName = mailbox.name.utf8.allSatisfy { (0x20...0x7E).contains($0) } && !mailbox.name.contains("=?")
        if asciiName {
            let escaped = mailbox.name.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"")
            return "\"\(escaped)\" <\(mailbox.address)>"
        }
        return "\(encodedText(mailbox.name)) <\(mailbox.address)>"
    }

    /// RFC 5322 date-time in UTC: `Sun, 06 Nov 1994 08:49:37 +0000`.
    public static func date(seconds: Int64) -> String {
        var text = WallClock.httpDate(seconds: seconds)
        if text.hasSuffix(" GMT") { text.removeLast(4) }
        return text + " +0000"
    }

    /// `text` with every line break (LF, CR or CRLF) as CRLF, the canonical form for MIME text.
    static func crlfLines(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        var previousCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                if !previousCR { out += "\r\n" }
                previousCR = false
            } else if scalar == "\r" {
                out += "\r\n"
                previousCR = true
            } else {
                out.unicodeScalars.append(scalar)
                previousCR = false
            }
        }
        return out
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound]
            out += replacement
            rest = rest[range.upperBound...]
        }
        out += rest
        return out
    }
}
