import Foundation
import KuraAuth
import KuraCore
import KuraHTTP
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// One answer per `Authorization` input on every endpoint (docs/api.md, "Who is calling"): every route the router
/// has registered is called with every kind of `Authorization` input, and the answers are compared with the one
/// table (`expected`). A route added without a line in `areas` fails this test until it is classified.
@Suite("Caller resolution: the same Authorization input gets the same answer on every endpoint")
struct CallerResolutionTests {
    /// How an endpoint treats its caller (`CallerPolicy` in Sources/KuraServer/CallerResolution.swift).
    enum Area: String {
        /// `Authorization` is not read: every input answers as no header does.
        case open
        /// Anyone: anonymous callers, users admitted to data, the admin key (documents, queries, listen).
        case data
        /// A user's ID token, verified address or not (the account's own endpoints).
        case user
        /// A user's ID token, or nobody (`POST /api/auth/verify-email`: by token or by address).
        case userOrAnonymous
        /// The admin key or a user with the `admin` claim.
        case admin
        /// As `admin`, and `Bearer owner` (the Firebase Admin SDKs' emulator credential) from loopback: the Firebase
        /// Auth admin and emulator endpoints (`compat.firebaseAuth`).
        case firebaseAdmin
    }

    /// The Firebase Auth endpoints (`compat.firebaseAuth`, on in `CallerServer`).
    static let firebaseAreas: [String: Area] = {
        let v1 = "/identitytoolkit.googleapis.com/v1"
        let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"
        var areas: [String: Area] = ["POST /securetoken.googleapis.com/v1/token": .open]
        for name in [
            "accounts:signUp", "accounts:signInWithPassword", "accounts:sendOobCode", "accounts:resetPassword",
            "accounts:update", "accounts:lookup", "accounts:delete",
        ] {
            areas["POST \(v1)/\(name)"] = .open
        }
        for name in [
            "signupNewUser", "verifyPassword", "getOobConfirmationCode", "resetPassword", "setAccountInfo",
            "getAccountInfo", "deleteAccount",
        ] {
            areas["POST \(v3)/\(name)"] = .open
        }
        for name in [
            "accounts", "accounts:lookup", "accounts:update", "accounts:delete", "accounts:batchDelete",
            "accounts:sendOobCode", "accounts:query",
        ] {
            areas["POST \(v1)/projects/:project/\(name)"] = .firebaseAdmin
        }
        areas["GET \(v1)/projects/:project/accounts:batchGet"] = .firebaseAdmin
        areas["GET /emulator/v1/projects/:project/oobCodes"] = .firebaseAdmin
        areas["DELETE /emulator/v1/projects/:project/accounts"] = .firebaseAdmin
        return areas
    }()

    /// Every route, `METHOD pattern`, with its area.
    static let areas: [String: Area] = [
        "GET /api/health": .open, "GET /": .open, "GET /sdk/:file": .open,
        "GET /auth/action.css": .open, "GET /auth/action": .open, "POST /auth/action": .open,
        "GET /api/auth/keys": .open, "POST /api/auth/signup": .open, "POST /api/auth/signin": .open,
        "POST /api/auth/refresh": .open, "POST /api/auth/verify-email/confirm": .open,
        "POST /api/auth/action-code/check": .open, "POST /api/auth/password-reset": .open,
        "POST /api/auth/password-reset/confirm": .open,
        "POST /api/auth/signout": .user, "GET /api/auth/me": .user, "PATCH /api/auth/me": .user,
        "DELETE /api/auth/me": .user, "POST /api/auth/verify-email": .userOrAnonymous,
        "GET /api/docs/*path": .data, "POST /api/docs/*path": .data, "PUT /api/docs/*path": .data,
        "PATCH /api/docs/*path": .data, "DELETE /api/docs/*path": .data, "POST /api/query": .data,
        "POST /api/query/count": .data, "POST /api/commit": .data, "GET /api/listen": .data,
        "POST /api/listen/:connection": .data, "GET /api/seed/hit_7th/datalist": .data,
        "GET /api/seed/hit_7th/datalist/:id": .data,
        "GET /api/admin/users": .admin, "GET /api/admin/users/:uid": .admin, "PATCH /api/admin/users/:uid": .admin,
        "DELETE /api/admin/users/:uid": .admin, "GET /api/admin/outbox": .admin, "GET /api/admin/rules": .admin,
        "POST /api/admin/rules": .admin, "GET /api/admin/indexes": .admin, "POST /api/admin/indexes": .admin,
        "DELETE /api/admin/indexes/:id": .admin, "GET /metrics": .admin, "POST /api/query/aggregate": .data,
        "GET /_": .open, "GET /_/": .open, "GET /_/:file": .open, "GET /auth/action.js": .open,
        "GET /auth/favicon.svg": .open, "GET /favicon.ico": .open, "GET /api/admin/collections": .admin,
        "GET /api/admin/rules/versions": .admin, "GET /api/admin/rules/versions/:id": .admin,
        "GET /api/admin/status": .admin, "GET /api/admin/traffic": .admin, "POST /api/admin/outbox/:id/resend": .admin,
        "POST /api/admin/rules/test": .admin, "POST /api/admin/users": .admin,
        "POST /api/admin/users/:uid/revoke": .admin,
    ].merging(firebaseAreas) { kura, _ in kura }

    /// The kinds of `Authorization` input.
    enum Input: String, CaseIterable {
        case none, basic, bearerWithoutToken, malformed, badSignature, expired, revoked, deleted, disabled
        case unverified, user, adminUser, adminKey
        /// `Bearer owner`, from loopback (as every test request is).
        case owner
    }

    /// What an input must get on an area.
    enum Expected: Equatable {
        /// The caller is refused with this status and code.
        case refused(Int, String)
        /// The caller is let through: whatever the endpoint answers, it is not about who is calling.
        case accepted
        /// The same answer as without `Authorization`.
        case asWithoutHeader
    }

    /// The one table (docs/api.md, "Who is calling").
    static func expected(_ input: Input, _ area: Area) -> Expected {
        if area == .open { return .asWithoutHeader }
        if input == .owner {
            // Elsewhere `owner` is just a malformed ID token.
            return area == .firebaseAdmin ? .accepted : .refused(401, "INVALID_ID_TOKEN")
        }
        let area = area == .firebaseAdmin ? .admin : area
        switch input {
        case .none:
            return area == .user || area == .admin ? .refused(401, "UNAUTHENTICATED") : .accepted
        case .basic, .bearerWithoutToken: return .refused(401, "UNAUTHENTICATED")
        case .malformed, .badSignature, .revoked, .deleted, .disabled: return .refused(401, "INVALID_ID_TOKEN")
        case .expired: return .refused(401, "TOKEN_EXPIRED")
        case .unverified:
            return area == .data || area == .admin ? .refused(403, "EMAIL_NOT_VERIFIED") : .accepted
        case .user: return area == .admin ? .refused(403, "PERMISSION_DENIED") : .accepted
        case .adminUser, .owner: return .accepted
        case .adminKey: return area == .user || area == .userOrAnonymous ? .refused(401, "UNAUTHENTICATED") : .accepted
        }
    }

    /// Codes that refuse the caller; an accepted caller gets none of them.
    static let callerCodes: Set<String> = [
        "UNAUTHENTICATED", "INVALID_ID_TOKEN", "TOKEN_EXPIRED", "USER_DISABLED", "EMAIL_NOT_VERIFIED",
    ]

    /// A request for `route` that gets past the caller check without changing anything shared: bodies the handler
    /// refuses, ids that do not exist.
    static func request(_ method: String, _ pattern: String) -> (
        target: String, json: Any?, headers: [(String, String)]
    ) {
        switch (method, pattern) {
        case (_, "/api/docs/*path"):
            let target = method == "POST" ? "/api/docs/things" : "/api/docs/things/t1"
            return (target, method == "GET" || method == "DELETE" ? nil : ["data": ["a": 1]], [])
        case ("GET", "/api/listen"): return (pattern, nil, [("Last-Event-ID", "not-an-event-id")])
        case (_, "/api/listen/:connection"): return ("/api/listen/no-such-stream", [:] as [String: Any], [])
        case (_, "/api/admin/users/:uid"):
            return ("/api/admin/users/no-such-user", method == "PATCH" ? ["displayName": 5] : nil, [])
        case (_, "/api/admin/indexes/:id"): return ("/api/admin/indexes/999999", nil, [])
        case (_, "/api/seed/hit_7th/datalist/:id"): return ("/api/seed/hit_7th/datalist/1", nil, [])
        case ("POST", "/api/admin/rules"): return (pattern, ["source": 5], [])
        case ("POST", "/api/auth/signout"): return (pattern, ["all": "not a flag"], [])
        case ("PATCH", "/api/auth/me"): return (pattern, ["unknown": 1], [])
        case ("POST", "/api/auth/verify-email"): return (pattern, ["email": "nobody@example.com"], [])
        case (_, let path) where path.contains("/projects/:project/"):
            let target = path.replacingOccurrences(of: ":project", with: firebaseProject)
            switch path.split(separator: "/").last ?? "" {
            case "accounts": return (target, method == "POST" ? ["email": 5] : nil, [])
            case "accounts:update", "accounts:delete": return (target, ["localId": "no-such-user"], [])
            case "accounts:batchDelete": return (target, ["localIds": ["no-such-user"]], [])
            default: return (target, method == "POST" ? [:] as [String: Any] : nil, [])
            }
        case (_, "/sdk/:file"): return ("/sdk/kura.js", nil, [])
        case ("POST", "/auth/action"): return (pattern, nil, [])
        case ("POST", _): return (pattern, [:] as [String: Any], [])
        default: return (pattern, nil, [])
        }
    }

    @Test("every registered route × every Authorization input answers as the one table says")
    func everyEndpointOneRule() throws {
        try withCallerServer { server in
            var mismatches: [String] = []
            let registered = Set(server.routes.map { "\($0.method) \($0.pattern)" })
            for route in registered.sorted() where Self.areas[route] == nil {
                mismatches.append("\(route): not classified in CallerResolutionTests.areas")
            }
            for route in Self.areas.keys.sorted() where !registered.contains(route) {
                mismatches.append("\(route): classified but not registered")
            }
            for route in server.routes {
                guard let area = Self.areas["\(route.method) \(route.pattern)"] else { continue }
                let method = "\(route.method)"
                let (target, json, headers) = Self.request(method, route.pattern)
                let baseline = try server.send(method, target, json: json, headers: headers, authorization: nil)
                for input in Input.allCases {
                    let authorization = try server.authorization(input)
                    let answer = try server.send(
                        method, target, json: json, headers: headers, authorization: authorization)
                    let got = "\(answer.status) \(answer.errorCode ?? "-")"
                    let where_ = "\(method) \(route.pattern) with \(input.rawValue)"
                    switch Self.expected(input, area) {
                    case .refused(let status, let code):
                        if answer.status != status || answer.errorCode != code {
                            mismatches.append("\(where_): got \(got), want \(status) \(code)")
                        }
                    case .accepted:
                        if answer.status == 401 || Self.callerCodes.contains(answer.errorCode ?? "")
                            || (area == .admin && answer.errorCode == "PERMISSION_DENIED")
                        {
                            mismatches.append("\(where_): got \(got), want the caller accepted")
                        }
                    case .asWithoutHeader:
                        if answer.status != baseline.status || answer.errorCode != baseline.errorCode {
                            mismatches.append(
                                "\(where_): got \(got), want \(baseline.status) \(baseline.errorCode ?? "-") as without"
                            )
                        }
                    }
                }
            }
            let report = mismatches.joined(separator: "\n")
            #expect(mismatches.isEmpty, "\(mismatches.count) answers differ:\n\(report)")
        }
    }
}

extension CallerResolutionTests {
    @Test("the listen endpoints answer a token in ?token= as they answer it in Authorization: Bearer")
    func listenQueryToken() throws {
        try withCallerServer { server in
            var mismatches: [String] = []
            for (method, pattern) in [("GET", "/api/listen"), ("POST", "/api/listen/:connection")] {
                let (target, json, headers) = Self.request(method, pattern)
                let separator = target.contains("?") ? "&" : "?"
                let empty = try server.send(
                    method, target + separator + "token=", json: json, headers: headers, authorization: nil)
                if empty.status != 401 || empty.errorCode != "UNAUTHENTICATED" {
                    mismatches.append("\(method) \(pattern) with an empty ?token=: got \(empty.status)")
                }
                for input in Input.allCases {
                    guard let authorization = try server.authorization(input), authorization.hasPrefix("Bearer "),
                        input != .bearerWithoutToken
                    else { continue }
                    let token = String(authorization.dropFirst("Bearer ".count))
                    let query = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token
                    let answer = try server.send(
                        method, target + separator + "token=" + query, json: json, headers: headers,
                        authorization: nil)
                    let got = "\(answer.status) \(answer.errorCode ?? "-")"
                    switch Self.expected(input, .data) {
                    case .refused(let status, let code) where answer.status != status || answer.errorCode != code:
                        mismatches.append(
                            "\(method) \(pattern) ?token= \(input.rawValue): got \(got), want \(status) \(code)")
                    case .accepted where answer.status == 401 || Self.callerCodes.contains(answer.errorCode ?? ""):
                        mismatches.append("\(method) \(pattern) ?token= \(input.rawValue): got \(got), want accepted")
                    default: break
                    }
                }
            }
            let report = mismatches.joined(separator: "\n")
            #expect(mismatches.isEmpty, "\(mismatches.count) answers differ:\n\(report)")
        }
    }
}

/// A server with `auth.requireVerifiedEmail` and rules that allow everything, so that only the caller decides.
final class CallerServer {
    let kura: KuraNode
    let routes: [(method: HTTPMethod, pattern: String)]
    let dataDirectory: String
    private var shared: [CallerResolutionTests.Input: String] = [:]
    private var made = 0

    init() throws {
        dataDirectory = NSTemporaryDirectory() + "kura-callers-" + UUID().uuidString
        var configuration = KuraConfiguration()
        configuration.dataDirectory = dataDirectory
        configuration.http.port = 0
        configuration.http.eventLoops = 1
        configuration.auth = .lowCostForTesting
        configuration.auth.rateLimits.enabled = false
        configuration.auth.requireVerifiedEmail = true
        configuration.compat.firebaseAuth = true
        configuration.compat.firebaseProjectId = firebaseProject
        var router: Router<KuraContext>?
        kura = try KuraNode(configuration: configuration, logger: Logger(level: .error), extraRoutes: { router = $0 })
        routes = router?.routes ?? []
        try kura.start()
        _ = try kura.rules.replace(
            source: "rules_version = '1';\nmatch /{document=**} {\n  allow read, write: if true;\n}\n")
    }

    func shutdown() {
        kura.stop()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    /// One request on its own connection.
    func send(
        _ method: String, _ target: String, json: Any?, headers: [(String, String)], authorization: String?
    ) throws -> HTTPResponse {
        let client = try APIClient(port: kura.port, adminKey: kura.adminKey.value)
        return try client.request(
            method, target, json: json, headers: headers, auth: authorization.map { .header($0) } ?? .none)
    }

    /// The `Authorization` value for `input`: a fresh account for the inputs whose requests may change it (a
    /// signed-in user may sign out or delete the account), one shared account for the refused ones.
    func authorization(_ input: CallerResolutionTests.Input) throws -> String? {
        switch input {
        case .none: return nil
        case .basic: return "Basic dXNlcjpwYXNzd29yZA=="
        case .bearerWithoutToken: return "Bearer"
        case .malformed: return "Bearer not-a-token"
        case .owner: return "Bearer owner"
        case .adminKey: return "Bearer \(kura.adminKey.value)"
        case .user: return "Bearer \(try signedIn().token)"
        case .adminUser: return "Bearer \(try signedIn(admin: true).token)"
        case .unverified:
            let (uid, token) = try signedIn()
            _ = try kura.auth.updateUser(uid: uid, AdminUserUpdate(emailVerified: false))
            return "Bearer \(token)"
        default:
            if let token = shared[input] { return "Bearer \(token)" }
            let token = try refusedToken(input)
            shared[input] = token
            return "Bearer \(token)"
        }
    }

    private func refusedToken(_ input: CallerResolutionTests.Input) throws -> String {
        switch input {
        case .badSignature:
            // A character in the middle of the signature: every bit of it counts.
            var characters = Array(try signedIn().token)
            let index = characters.count - 20
            characters[index] = characters[index] == "A" ? "B" : "A"
            return String(characters)
        case .expired:
            // Issued two hours ago (an account service on the same data, with its clock set back), so it expired
            // an hour ago.
            let past = try AuthService(
                directory: dataDirectory, configuration: kura.configuration.auth,
                clock: AuthClock { Double(WallClock.nowMicros()) / 1_000_000 - 7200 })
            made += 1
            let email = "expired\(made)@example.com"
            _ = try past.createUser(email: email, password: "secret-pw")
            return try past.signIn(email: email, password: "secret-pw").idToken
        case .revoked:
            let (_, token) = try signedIn()
            try kura.auth.signOut(try kura.auth.verifyIDToken(token))
            return token
        case .deleted:
            let (uid, token) = try signedIn()
            try kura.auth.deleteUser(uid: uid)
            return token
        case .disabled:
            let (uid, token) = try signedIn()
            _ = try kura.auth.updateUser(uid: uid, AdminUserUpdate(disabled: true))
            return token
        default: throw TestFailure("no shared token for \(input)")
        }
    }

    /// A new verified account, signed in.
    private func signedIn(admin: Bool = false) throws -> (uid: String, token: String) {
        made += 1
        let email = "caller\(made)@example.com"
        let user = try kura.auth.createUser(email: email, password: "secret-pw", admin: admin)
        return (user.uid, try kura.auth.signIn(email: email, password: "secret-pw").idToken)
    }
}

/// Runs `body` against a fresh `CallerServer`, then stops it and removes its data.
func withCallerServer<T>(_ body: (CallerServer) throws -> T) throws -> T {
    let server = try CallerServer()
    defer { server.shutdown() }
    return try body(server)
}
