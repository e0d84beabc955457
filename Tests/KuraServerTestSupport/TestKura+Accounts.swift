import Foundation
import KuraServer
import KuraTestSupport

/// Runs `body` against a fresh server with the settings every accounts test starts from: cheap argon2id and no
/// rate limits; `rules` and `configure` as for `withTestKura`.
public func withAuthKura<T>(
    mode: TestKura.Mode = .live, rules: String? = nil, configure: (inout KuraConfiguration) throws -> Void = { _ in },
    _ body: (TestKura) throws -> T
) throws -> T {
    try withTestKura(
        mode: mode, rules: rules,
        configure: { configuration in
            configuration.auth = .lowCostForTesting
            configuration.auth.rateLimits.enabled = false
            try configure(&configuration)
        }, body)
}

/// A signed-in user as sign-up, sign-in and refresh return it: the account and its tokens.
public struct Session {
    public var uid: String
    public var idToken: String
    public var refreshToken: String
    public var user: [String: Any]

    /// Reads the session out of a sign-up, sign-in or refresh answer.
    public init(_ response: HTTPResponse) throws {
        let json = response.json
        guard let user = json["user"] as? [String: Any], let uid = user["uid"] as? String,
            let idToken = json["idToken"] as? String, let refreshToken = json["refreshToken"] as? String
        else { throw UnexpectedResponse(response) }
        self.uid = uid
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.user = user
    }

    /// `Authorization: Bearer <ID token>`.
    public var bearer: TestKura.Auth { .header("Bearer \(idToken)") }
}

extension TestKura {
    /// A request authenticated with a user's ID token.
    public func request(
        _ method: String, _ target: String, json: Any? = nil, token: String, headers: [(String, String)] = []
    ) throws -> HTTPResponse {
        try request(method, target, json: json, headers: headers, auth: .header("Bearer \(token)"))
    }

    /// A request as `session`'s user (its ID token), or anonymous when `session` is `nil`.
    public func request(
        _ method: String, _ target: String, json: Any? = nil, headers: [(String, String)] = [], as session: Session?
    ) throws -> HTTPResponse {
        try request(method, target, json: json, headers: headers, auth: session.map { $0.bearer } ?? .none)
    }

    /// `POST /api/auth/signup`; requires a 201.
    @discardableResult
    public func signUp(_ email: String, _ password: String = "secret-pw", displayName: String? = nil) throws -> Session
    {
        var body: [String: Any] = ["email": email, "password": password]
        if let displayName { body["displayName"] = displayName }
        let response = try request("POST", "/api/auth/signup", json: body, auth: .none)
        guard response.status == 201 else { throw UnexpectedResponse(response) }
        return try Session(response)
    }

    /// `POST /api/auth/signup` on a server with `auth.requireVerifiedEmail`: requires a 201 with the account and no
    /// tokens; returns the account's `uid`.
    @discardableResult
    public func signUpWithoutSession(_ email: String, _ password: String = "secret-pw") throws -> String {
        let response = try request(
            "POST", "/api/auth/signup", json: ["email": email, "password": password], auth: .none)
        guard response.status == 201, response.json["idToken"] == nil,
            let uid = (response.json["user"] as? [String: Any])?["uid"] as? String
        else { throw UnexpectedResponse(response) }
        return uid
    }

    /// `POST /api/auth/signin` as is.
    public func signInResponse(_ email: String, _ password: String) throws -> HTTPResponse {
        try request("POST", "/api/auth/signin", json: ["email": email, "password": password], auth: .none)
    }

    /// `POST /api/auth/signin`; requires a 200.
    public func signIn(_ email: String, _ password: String = "secret-pw") throws -> Session {
        let response = try signInResponse(email, password)
        guard response.status == 200 else { throw UnexpectedResponse(response) }
        return try Session(response)
    }

    /// A signed-in user whose account has the `admin` custom claim (made directly, as `kura admin create-user
    /// --admin` does).
    public func signUpAdmin(_ email: String) throws -> Session {
        _ = try kura.auth.createUser(email: email, password: "secret-pw", admin: true)
        return try signIn(email)
    }

    /// `POST /api/auth/refresh` as is.
    public func refresh(_ refreshToken: String) throws -> HTTPResponse {
        try request("POST", "/api/auth/refresh", json: ["refreshToken": refreshToken], auth: .none)
    }

    /// `GET /api/auth/me` with `token`.
    public func me(_ token: String) throws -> HTTPResponse { try request("GET", "/api/auth/me", token: token) }

    /// `PATCH /api/admin/users/{uid}` as the administrator; requires a 200.
    @discardableResult
    public func adminUpdate(_ uid: String, _ body: [String: Any]) throws -> HTTPResponse {
        let response = try request("PATCH", "/api/admin/users/\(uid)", json: body)
        guard response.status == 200 else { throw UnexpectedResponse(response) }
        return response
    }

    /// Waits until every mail asked for by address (password reset, verification resend) has been handled:
    /// those are answered before their mail is written (`AddressMailRequests`).
    public func settleAddressMails() throws {
        let requests = kura.addressMails
        guard waitUntil(timeout: 10, { requests.finished >= requests.submitted }) else {
            throw TestFailure("address mail requests did not finish: \(requests.finished)/\(requests.submitted)")
        }
    }

    /// `GET /api/admin/outbox` as the administrator; requires a 200 and returns the mails, newest first. With
    /// `settle`, after the mails asked for by address have been written.
    public func outbox(_ query: String = "", settle: Bool = true) throws -> [[String: Any]] {
        if settle { try settleAddressMails() }
        let response = try request("GET", "/api/admin/outbox" + query)
        guard response.status == 200, let mails = response.json["mails"] as? [[String: Any]] else {
            throw UnexpectedResponse(response)
        }
        return mails
    }

    /// The `actionLink` of the newest outbox mail to `address` whose link has `mode` (`verifyEmail`,
    /// `resetPassword`, …).
    public func heldLink(to address: String, mode: String) throws -> String {
        let mail = try outbox().first {
            $0["to"] as? String == address && ($0["actionLink"] as? String)?.contains("mode=\(mode)&") == true
        }
        guard let link = mail?["actionLink"] as? String else {
            throw TestFailure("no \(mode) mail to \(address) in the outbox: \(try outbox())")
        }
        return link
    }

    /// GET of a mail link (absolute URL on this server), as a browser would open it.
    public func open(_ link: String) throws -> HTTPResponse {
        try request("GET", try pathAndQuery(link), auth: .none)
    }

    /// Submits the action page's form: `application/x-www-form-urlencoded` fields to `POST /auth/action`.
    public func submitActionForm(_ fields: [(String, String)]) throws -> HTTPResponse {
        let body = fields.map { "\(formEncode($0.0))=\(formEncode($0.1))" }.joined(separator: "&")
        return try request(
            "POST", "/auth/action", body: Array(body.utf8),
            headers: [("Content-Type", "application/x-www-form-urlencoded")], auth: .none)
    }
}

/// `/auth/action?…` of an absolute link to this server.
public func pathAndQuery(_ link: String) throws -> String {
    guard let components = URLComponents(string: link), let query = components.percentEncodedQuery else {
        throw TestFailure("not a URL with a query: \(link)")
    }
    return components.percentEncodedPath + "?" + query
}

/// A query parameter of a link.
public func queryItem(_ link: String, _ name: String) -> String? {
    URLComponents(string: link)?.queryItems?.first { $0.name == name }?.value
}

/// Form encoding: unreserved characters as is, space as `+`, everything else percent-encoded.
public func formEncode(_ text: String) -> String {
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
