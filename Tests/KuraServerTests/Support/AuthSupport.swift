import Foundation
import KuraAuth
import KuraCore
import KuraMail
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

// Helpers for the accounts and mail tests over HTTP (Auth*Tests.swift); the shared ones (users with tokens, the
// SMTP sink) are in KuraServerTestSupport and KuraTestSupport.

/// Mail settings for a relay on 127.0.0.1:`port` with retries within milliseconds.
func fastMail(port: Int) -> MailConfiguration {
    MailConfiguration(
        smtp: SMTPConfiguration(
            url: "smtp://127.0.0.1:\(port)", startTLS: .none, connectTimeout: .seconds(2), timeout: .seconds(5)),
        retryBase: .milliseconds(20), retryMax: .milliseconds(150), maxAttempts: 1000, pollInterval: .milliseconds(50))
}

/// The hidden `<input name="…" value="…">` values of an action page's form (HTML-unescaped).
func formFields(_ html: String) -> [String: String] {
    var fields: [String: String] = [:]
    let pattern = #"<input type="hidden" name="([^"]*)" value="([^"]*)">"#
    let regex = try! NSRegularExpression(pattern: pattern)
    for match in regex.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
        guard let name = Range(match.range(at: 1), in: html), let value = Range(match.range(at: 2), in: html) else {
            continue
        }
        fields[String(html[name])] = String(html[value])
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
    return fields
}

/// The first `http(s)://…/auth/action?…` link in a mail's text.
func actionLink(inText text: String) -> String? {
    let regex = try! NSRegularExpression(pattern: #"https?://[^\s<>"]+/auth/action\?[^\s<>"]+"#)
    guard let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
        let range = Range(match.range, in: text)
    else { return nil }
    return String(text[range])
}

/// The `text/plain` part of a mail as the sink parsed it.
func textPart(_ mail: JSONObject) -> String? {
    for part in mail["parts"]?.arrayValue ?? [] {
        if part.objectValue?["contentType"]?.stringValue == "text/plain" {
            return part.objectValue?["content"]?.stringValue
        }
    }
    return nil
}

/// Checks that `response` is the error `status` `code` with the documented body, `{"error":{"code","message"}}`.
func expectError(
    _ response: HTTPResponse, _ status: Int, _ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(response.status == status, "\(response)", sourceLocation: sourceLocation)
    let error = response.json["error"] as? [String: Any]
    #expect(error?["code"] as? String == code.rawValue, "\(response)", sourceLocation: sourceLocation)
    #expect((error?["message"] as? String)?.isEmpty == false, "\(response)", sourceLocation: sourceLocation)
    #expect(response.header("Content-Type") == "application/json", sourceLocation: sourceLocation)
}

/// Decodes a JWT's header or payload (segment 0 or 1) without checking anything.
func jwtSegment(_ token: String, _ index: Int) -> [String: Any] {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else { return [:] }
    var text = String(parts[index]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while text.count % 4 != 0 { text += "=" }
    guard let data = Data(base64Encoded: text) else { return [:] }
    return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
}
