import KuraCore
import KuraModel
import Testing

@testable import KuraMail

/// Decodes one `=?UTF-8?B?…?=` word.
private func decodeWord(_ word: Substring) -> String? {
    guard word.hasPrefix("=?UTF-8?B?"), word.hasSuffix("?=") else { return nil }
    guard let bytes = Base64.decode(String(word.dropFirst(10).dropLast(2))) else { return nil }
    return String(validating: bytes, as: UTF8.self)
}

/// Unfolds and decodes a header value made of encoded-words.
private func decodeHeader(_ value: String) -> String? {
    var out = ""
    for word in value.replacingAll("\r\n ", with: " ").split(separator: " ") {
        guard let decoded = decodeWord(word) else { return nil }
        out += decoded
    }
    return out
}

@Suite struct MessageBuildingTests {
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("日本", "5pel5pys"),
    ])
    func base64RoundTrips(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test func asciiSubjectStaysPlain() {
        #expect(MIMEHeader.encodedText("Verify your email for Kura") == "Verify your email for Kura")
    }

    @Test func japaneseSubjectIsAnEncodedWord() {
        let subject = "Kura のメールアドレスを確認してください"
        let encoded = MIMEHeader.encodedText(subject)
        #expect(encoded.hasPrefix("=?UTF-8?B?"))
        #expect(decodeHeader(encoded) == subject)
    }

    @Test func longSubjectSplitsOnCharacterBoundariesWithinLimits() {
        let subject = String(repeating: "パスワードの再設定🔑", count: 8)
        let encoded = MIMEHeader.encodedText(subject)
        let words = encoded.components(separatedBy: "\r\n ")
        #expect(words.count > 3)
        for word in words {
            #expect(word.utf8.count <= 75)
            #expect(decodeWord(Substring(word)) != nil, "each word holds whole UTF-8 characters")
        }
        #expect(decodeHeader(encoded) == subject)
    }

    @Test func lineBreaksInSubjectCannotInjectHeaders() {
        let encoded = MIMEHeader.encodedText("Hi\r\nBcc: victim@example.com")
        #expect(!encoded.contains("\nBcc"))
        #expect(decodeHeader(encoded) == "Hi Bcc: victim@example.com")
    }

    @Test func encodedWordLookalikeIsEncoded() {
        #expect(MIMEHeader.encodedText("=?x?").hasPrefix("=?UTF-8?B?"))
    }

    @Test func mailboxFormatting() {
        #expect(MIMEHeader.mailbox(MailAddress(address: "a@example.com")) == "a@example.com")
        #expect(MIMEHeader.mailbox(MailAddress(name: "My \"App\"", address: "a@x.jp")) == #""My \"App\"" <a@x.jp>"#)
        let japanese = MIMEHeader.mailbox(MailAddress(name: "倉アプリ", address: "a@x.jp"))
        #expect(japanese.hasSuffix(" <a@x.jp>"))
        #expect(decodeHeader(String(japanese.dropLast(9))) == "倉アプリ")
    }

    @Test(arguments: [
        ("Kura <noreply@example.com>", "Kura", "noreply@example.com"),
        ("\"My App\" <a@b.c>", "My App", "a@b.c"),
        ("<a@b.c>", "", "a@b.c"),
        ("  a@b.c ", "", "a@b.c"),
    ])
    func addressParsing(text: String, name: String, address: String) {
        #expect(MailAddress(parsing: text) == MailAddress(name: name, address: address))
    }

    @Test(arguments: ["", "nobody", "a b@c.d", "a@b.c\r\nBcc: x@y.z", "<a@b.c", "a@", "@b", "a,b@c.d"])
    func invalidAddresses(text: String) {
        #expect(MailAddress(parsing: text) == nil)
        #expect(throws: (any Error).self) { try MailMessage(to: text, subject: "", text: "", html: "").validate() }
    }

    @Test func dateHeaderIsRFC5322() {
        #expect(MIMEHeader.date(seconds: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 +0000")
    }

    @Test func multipartStructure() throws {
        let message = MailMessage(
            to: "user@example.com", subject: "確認", text: "line 1\nline 2 https://x/?a=1&b=2", html: "<p>こんにちは</p>")
        let raw = message.rfc5322(
            from: MailAddress(name: "Kura", address: "noreply@example.com"), dateSeconds: 784_111_777,
            messageID: "abc@example.com", boundary: "=_kura_b1")
        let (head, body) = try #require(raw.splitOnce("\r\n\r\n"))
        let headers = head.components(separatedBy: "\r\n")
        #expect(headers.contains("From: \"Kura\" <noreply@example.com>"))
        #expect(headers.contains("To: user@example.com"))
        #expect(headers.contains("Date: Sun, 06 Nov 1994 08:49:37 +0000"))
        #expect(headers.contains("Message-ID: <abc@example.com>"))
        #expect(headers.contains("MIME-Version: 1.0"))
        #expect(headers.contains("Content-Type: multipart/alternative; boundary=\"=_kura_b1\""))
        let subject = try #require(headers.first { $0.hasPrefix("Subject: ") })
        #expect(decodeHeader(String(subject.dropFirst(9))) == "確認")

        // Only CRLF line ends, no line longer than 78 characters.
        #expect(!raw.replacingAll("\r\n", with: "").contains("\n"))
        #expect(raw.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 78 })

        let sections = body.components(separatedBy: "--=_kura_b1")
        #expect(sections.count == 4)  // preamble, text, html, "--" epilogue
        #expect(sections[3] == "--\r\n")
        let expected = [("text/plain", "line 1\r\nline 2 https://x/?a=1&b=2"), ("text/html", "<p>こんにちは</p>")]
        for (section, (type, content)) in zip(sections[1...2], expected) {
            let (partHead, partBody) = try #require(section.splitOnce("\r\n\r\n"))
            #expect(partHead.contains("Content-Type: \(type); charset=UTF-8"))
            #expect(partHead.contains("Content-Transfer-Encoding: base64"))
            let decoded = try #require(Base64.decode(partBody, ignoring: "\r\n"))
            #expect(String(decoding: decoded, as: UTF8.self) == content)
        }
    }
}

extension String {
    fileprivate func splitOnce(_ separator: String) -> (String, String)? {
        guard let range = firstRange(of: separator) else { return nil }
        return (String(self[..<range.lowerBound]), String(self[range.upperBound...]))
    }
}
