import KuraAuth
import KuraCore
import KuraHTTP
import KuraModel

/// `/api/admin/users`: list (or find by address), create, read, update (disable, claims, verified…), revoke the
/// sessions of, and delete accounts. For the admin key or
/// users with the `admin` claim (`CallerPolicy.admin`).
struct AdminUserRoutes {
    let auth: AuthService
    let callers: CallerResolution

    func register(on router: Router<KuraContext>) {
        let forAdmins = callers.routes(.admin, on: router)
        forAdmins.get("/api/admin/users") { request, context in
            try context.offload {
                if let email = try request.query("email") {
                    // One address: the account that has it, or none (addresses are unique).
                    let found = try auth.user(email: email).map { [$0.adminJSON] } ?? []
                    return .json(JSONValue.object(["users": .array(found)]).jsonBytes)
                }
                let size = try request.query("pageSize").map { text -> Int in
                    // Out of range is refused, not clamped: a caller asking for 0 or 5000 should learn the bounds.
                    guard let n = Int(text), (1...1000).contains(n) else {
                        throw APIError.badRequest("pageSize must be an integer from 1 to 1000")
                    }
                    return n
                }
                let page =
                    try request.query("emailPrefix").map {
                        try auth.listUsers(
                            emailPrefix: $0, pageToken: request.query("pageToken"), pageSize: size ?? 100)
                    } ?? auth.listUsers(pageToken: request.query("pageToken"), pageSize: size ?? 100)
                var answer: JSONObject = ["users": .array(page.users.map(\.adminJSON))]
                if let next = page.nextPageToken { answer["nextPageToken"] = .string(next) }
                return .json(JSONValue.object(answer).jsonBytes)
            }
        }
        forAdmins.post("/api/admin/users") { request, context in
            try context.offload {
                let body = try JSONBody(request)
                try body.allowOnly(["email", "password", "displayName", "emailVerified", "disabled", "uid"])
                guard let email = try body.string("email") else {
                    throw APIError(.invalidEmail, status: 400, message: "the body needs 'email'")
                }
                guard let password = try body.string("password") else {
                    throw APIError(.missingPassword, status: 400, message: "the body needs 'password'")
                }
                let user = try auth.createUser(
                    email: email, password: password, displayName: try body.string("displayName"),
                    emailVerified: try body.bool("emailVerified") ?? false, uid: try body.string("uid"),
                    disabled: try body.bool("disabled") ?? false)
                return .json(JSONValue.object(["user": user.adminJSON]).jsonBytes, status: 201)
            }
        }
        forAdmins.post("/api/admin/users/:uid/revoke") { request, context in
            try context.offload {
                try auth.revokeSessions(uid: try request.parameter("uid"))
                return .json(Array("{}".utf8))
            }
        }
        forAdmins.get("/api/admin/users/:uid") { request, context in
            try context.offload {
                return .json(
                    JSONValue.object(["user": try auth.user(uid: try request.parameter("uid")).adminJSON]).jsonBytes
                )
            }
        }
        forAdmins.patch("/api/admin/users/:uid") { request, context in
            try context.offload {
                let user = try auth.updateUser(uid: try request.parameter("uid"), try Self.update(request))
                return .json(JSONValue.object(["user": user.adminJSON]).jsonBytes)
            }
        }
        forAdmins.delete("/api/admin/users/:uid") { request, context in
            try context.offload {
                try auth.deleteUser(uid: try request.parameter("uid"))
                return .noContent
            }
        }
    }

    /// `{"disabled"?, "customClaims"?, "emailVerified"?, "displayName"?, "email"?, "password"?}`.
    private static func update(_ request: Request) throws -> AdminUserUpdate {
        let body = try JSONBody(request)
        try body.allowOnly(["disabled", "customClaims", "emailVerified", "displayName", "email", "password"])
        var update = AdminUserUpdate()
        update.disabled = try body.bool("disabled")
        update.customClaims = try body.object("customClaims")
        update.emailVerified = try body.bool("emailVerified")
        if let value = body["displayName"] {
            update.displayName = value == .null ? .some(nil) : .some(try body.string("displayName"))
        }
        update.email = try body.string("email")
        update.password = try body.string("password")
        return update
    }
}
