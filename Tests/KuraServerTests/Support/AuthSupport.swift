import Foundation
import KuraAuth
import KuraCore
import KuraMail
import KuraModel
import KuraServer
import Testing

// Helpers for the accounts and mail tests over HTTP (Auth*Tests.swift). The SMTP sink, `waitUntil`,
// `TestEnvironment` and `TestFailure` come from SMTPSink.swift, a symlink to KuraMailTests' copy.

/// The settings every accounts test starts from: cheap argon2id and no rate limits; `configure` then adjusts.
func withAuthKura<T>(
    configure: (inout KuraConfiguration) throws -> Void = { _ in }, _ body: (TestKura) throws -> T
) throws -> T {
    try withTestKura(
        configure: { configuration in
            configuration.auth = .lowCostForTesting
            configuration.auth.rateLimits.enabled = false
            try configure(&configuration)
        }, body)
}

/// Mail settings for a relay on 127.0.0.1:`port` with retries within milliseconds.
func fastMail(port: Int) -> MailConfiguration {
    MailConfiguration(
        smtp: SMTPConfiguration(
            url: "smtp://127.0.0.1:\(port)", startTLS: .none, connectTimeout: .seconds(2), timeout: .seconds(5)),
        retryBase: .milliseconds(20), retryMax: .milliseconds(150), maxAttempts: 1000, pollInterval: .milliseconds(50))
}

/// A signed-in session as sign-up, sign-in and refresh return it.
struct Session {
    var uid: String
    var idToken: String
    var refreshToken: String
    var user: [String: Any]

    init(_ response: HTTPResponse) throws {
        let json = response.json
        guard let user = json["user"] as? [String: Any], let uid = user["uid"] as? String,
            let idToken = json["idToken"] as? String, let refreshToken = json["refreshToken"] as? String
        else { throw UnexpectedResponse(response) }
        self.uid = uid
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.user = user
    }

    var bearer: TestKura.Auth { .header("Bearer \(idToken)") }
}

extension TestKura {
    /// A request authenticated with a user's ID token.
    func request(
        _ method: String, _ target: String, json: Any? = nil, token: String, headers: [(String, String)] = []
    ) throws -> HTTPResponse {
        try request(method, target, json: json, headers: headers, auth: .header("Bearer \(token)"))
    }

    /// `POST /api/auth/signup`; requires a 201.
    @discardableResult
    func signUp(_ email: String, _ password: String = "secret-pw", displayName: String? = nil) throws -> Session {
        var body: [String: Any] = ["email": email, "password": password]
        if let displayName { body["displayName"] = displayName }
        let response = try request("POST", "/api/auth/signup", json: body, auth: .none)
        guard response.status == 201 else { throw UnexpectedResponse(response) }
        return try Session(response)
    }

    /// `POST /api/auth/signup` on a server with `auth.requireVerifiedEmail`: requires a 201 with the account and no
    /// tokens; returns the account's `uid`.
    @discardableResult
    func signUpWithoutSession(_ email: String, _ password: String = "secret-pw") throws -> String {
        let response = try request(
            "POST", "/api/auth/signup", json: ["email": email, "password": password], auth: .none)
        guard response.status == 201, response.json["idToken"] == nil,
            let uid = (response.json["user"] as? [String: Any])?["uid"] as? String
        else { throw UnexpectedResponse(response) }
        return uid
    }

    /// `POST /api/auth/signin` as is.
    func signInResponse(_ email: String, _ password: String) throws -> HTTPResponse {
        try request("POST", "/api/auth/signin", json: ["email": email, "password": password], auth: .none)
    }

    /// `POST /api/auth/signin`; requires a 200.
    func signIn(_ email: String, _ password: String = "secret-pw") throws -> Session {
        let response = try signInResponse(email, password)
        guard response.status == 200 else { throw UnexpectedResponse(response) }
        return try Session(response)
    }

    /// `POST /api/auth/refresh` as is.
    func refresh(_ refreshToken: String) throws -> HTTPResponse {
        try request("POST", "/api/auth/refresh", json: ["refreshToken": refreshToken], auth: .none)
    }

    /// `GET /api/auth/me` with `token`.
    func me(_ token: String) throws -> HTTPResponse { try request("GET", "/api/auth/me", token: token) }

    /// Waits until every mail asked for by address (password reset, verification resend) has been handled:
    /// those are answered before their mail is written (`AddressMailRequests`).
    func settleAddressMails() throws {
        let requests = kura.addressMails
        guard waitUntil(timeout: 10, { requests.finished >= requests.submitted }) else {
            throw TestFailure("address mail requests did not finish: \(requests.finished)/\(requests.submitted)")
        }
    }

    /// `GET /api/admin/outbox` as the administrator; requires a 200 and returns the mails, newest first. With
    /// `settle`, after the mails asked for by address have been written.
    func outbox(_ query: String = "", settle: Bool = true) throws -> [[String: Any]] {
        if settle { try settleAddressMails() }
        let response = try request("GET", "/api/admin/outbox" + query)
        guard response.status == 200, let mails = response.json["mails"] as? [[String: Any]] else {
            throw UnexpectedResponse(response)
        }
        return mails
    }

    /// `PATCH /api/admin/users/{uid}` as the administrator; requires a 200.
    @discardableResult
    func adminUpdate(_ uid: String, _ body: [String: Any]) throws -> HTTPResponse {
        let response = try request("PATCH", "/api/admin/users/\(uid)", json: body)
        guard response.status == 200 else { throw UnexpectedResponse(response) }
        return response
    }

    /// The `actionLink` of the newest outbox mail to `address` whose link has `mode`.
    func heldLink(to address: String, mode: String) throws -> String {
        let mail = try outbox().first {
            $0["to"] as? String == address && ($0["actionLink"] as? String)?.contains("mode=\(mode)&") == true
        }
        guard let link = mail?["actionLink"] as? String else {
            throw TestFailure("no \(mode) mail to \(address) in the outbox: \(try outbox())")
        }
        return link
    }

    /// GET of a mail link (absolute URL on this server), as a browser would open it.
    func open(_ link: String) throws -> HTTPResponse {
        try request("GET", try pathAndQuery(link), auth: .none)
    }

    /// Submits the action page's form: `application/x-www-form-urlencoded` fields to `POST /auth/action`.
    func submitActionForm(_ fields: [(String, String)]) throws -> HTTPResponse {
        let body = fields.map { "\(formEncode($0.0))=\(formEncode($0.1))" }.joined(separator: "&")
        return try request(
            "POST", "/auth/action", body: Array(body.utf8),
            headers: [("Content-Type", "application/x-www-form-urlencoded")], auth: .none)
    }
}

/// `/auth/action?…` of an absolute link to this server.
func pathAndQuery(_ link: String) throws -> String {
    guard let components = URLComponents(string: link), let query = components.percentEncodedQuery else {
        throw TestFailure("not a URL with a query: \(link)")
    }
    return components.percentEncodedPath + "?" + query
}

/// A query parameter of a link.
func queryItem(_ link: String, _ name: String) -> String? {
    URLComponents(string: link)?.queryItems?.first { $0.name == name }?.value
}

/// Form encoding: unreserved characters as is, space as `+`, everything else percent-encoded.
func formEncode(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
            UInt8(ascii: "~"):
            out.append(Character(UnicodeScalar(byte)))
        case UInt8(ascii: " "): out.append("+")
        default: out += String(format: "%%%02X", byte)
        }
    }
    return out
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
    _ response: HTTPResponse, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(response.status == status, "\(response)", sourceLocation: sourceLocation)
    let error = response.json["error"] as? [String: Any]
    #expect(error?["code"] as? String == code, "\(response)", sourceLocation: sourceLocation)
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

/// Runs `body` on `count` new threads (real ones: `concurrentPerform` would use only as many as there are cores)
/// and waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    group.wait()
}
