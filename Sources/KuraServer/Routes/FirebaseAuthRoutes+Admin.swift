import KuraAuth
import KuraCore
import KuraHTTP
import KuraModel

/// The Admin SDKs' endpoints, `/identitytoolkit.googleapis.com/v1/projects/{project}/accounts…`, for the
/// administrator only (`FirebaseAuthRoutes.adminCaller`). Create, look up, list, update (custom claims through
/// `customAttributes`), delete, and action links.
extension FirebaseAuthRoutes {
    func registerAdmin(on router: Router<KuraContext>) {
        let routes = self
        let base = "\(Self.v1)/projects/:project"
        router.post("\(base)/accounts", handler(admin: true) { try routes.adminCreate($0) })
        router.post("\(base)/accounts:lookup", handler(admin: true) { try routes.lookup($0) })
        router.post("\(base)/accounts:update", handler(admin: true) { try routes.update($0) })
        router.post("\(base)/accounts:delete", handler(admin: true) { try routes.delete($0) })
        router.post("\(base)/accounts:batchDelete", handler(admin: true) { try routes.adminBatchDelete($0) })
        router.post("\(base)/accounts:sendOobCode", handler(admin: true) { try routes.sendOobCode($0) })
        router.post("\(base)/accounts:query", handler(admin: true) { try routes.adminQuery($0) })
        router.get("\(base)/accounts:batchGet", handler(admin: true) { try routes.adminList($0) })
    }

    /// `{localId?, email, password?, displayName?, emailVerified?, disabled?}` → `{localId}`. Without a password
    /// the account gets a random one nobody knows: its owner sets one through a password reset.
    func adminCreate(_ call: Call) throws -> JSONValue {
        let body = call.body
        guard let email = try body.string("email"), !email.isEmpty else {
            throw FirebaseWire.error("MISSING_EMAIL", "Kura's accounts have an email address")
        }
        let password = try body.string("password") ?? Base64.encode(SecureRandom.bytes(24), .urlSafe)
        let user = try auth.createUser(
            email: email, password: password, displayName: try body.string("displayName"),
            emailVerified: try body.bool("emailVerified") ?? false, uid: try body.string("localId"),
            disabled: try body.bool("disabled") ?? false)
        return FirebaseWire.answer(
            "identitytoolkit#SignupNewUserResponse", [("localId", .string(user.uid)), ("email", .string(user.email))])
    }

    /// `{localId: [...], email: [...]}` → the accounts found, in that order; no `users` when none is.
    func adminLookup(_ call: Call) throws -> JSONValue {
        var users: [JSONValue] = []
        for uid in try call.body.strings("localId") {
            if let user = try? auth.user(uid: uid) { users.append(FirebaseWire.userRecord(user)) }
        }
        for email in try call.body.strings("email") {
            if let user = try auth.user(email: email) { users.append(FirebaseWire.userRecord(user)) }
        }
        if let token = try call.body.string("idToken") {
            users.append(
                FirebaseWire.userRecord(try auth.currentUser(try CallerResolution.verifiedUser(token, auth: auth))))
        }
        return FirebaseWire.answer(
            "identitytoolkit#GetAccountInfoResponse", users.isEmpty ? [] : [("users", .array(users))])
    }

    /// `{localId, displayName?, email?, emailVerified?, password?, disableUser?, customAttributes?,
    /// deleteAttribute?, validSince?}` → `{localId}`. `customAttributes` is a JSON object in a string (`"{}"`
    /// clears the claims); `validSince` signs the user out everywhere.
    func adminUpdate(_ call: Call) throws -> JSONValue {
        let body = call.body
        guard let uid = try body.string("localId"), !uid.isEmpty else { throw FirebaseWire.error("MISSING_LOCAL_ID") }
        var update = AdminUserUpdate()
        if let name = try body.string("displayName") { update.displayName = .some(name) }
        if try body.strings("deleteAttribute").contains("DISPLAY_NAME") { update.displayName = .some(nil) }
        update.email = try body.string("email")
        update.emailVerified = try body.bool("emailVerified")
        update.password = try body.string("password")
        update.disabled = try body.bool("disableUser")
        if let text = try body.string("customAttributes") {
            guard let claims = (try? JSONValue.parse(Array(text.utf8)))?.objectValue else {
                throw FirebaseWire.error("INVALID_CLAIMS", "customAttributes must be a JSON object")
            }
            update.customClaims = claims
        }
        var user = try auth.updateUser(uid: uid, update)
        if try body.integer("validSince") != nil {
            try auth.revokeSessions(uid: uid)
            user = try auth.user(uid: uid)
        }
        return FirebaseWire.answer("identitytoolkit#SetAccountInfoResponse", [("localId", .string(user.uid))])
    }

    /// `{localIds, force}` → `{}`: accounts that do not exist count as deleted, as in Firebase.
    func adminBatchDelete(_ call: Call) throws -> JSONValue {
        let uids = try call.body.strings("localIds")
        guard uids.count <= 1000 else { throw FirebaseWire.error("INVALID_ARGUMENT", "at most 1000 localIds") }
        for uid in uids {
            do { try auth.deleteUser(uid: uid) } catch let error as APIError where error.code == .userNotFound {}
        }
        return FirebaseWire.answer(nil, [])
    }

    /// `GET …:batchGet?maxResults=&nextPageToken=` → `{users, nextPageToken?}`, by uid.
    func adminList(_ call: Call) throws -> JSONValue {
        let request = call.request
        let size = try request.query("maxResults").map { text -> Int in
            guard let n = Int(text), (1...1000).contains(n) else {
                throw FirebaseWire.error("INVALID_ARGUMENT", "maxResults must be an integer from 1 to 1000")
            }
            return n
        }
        let page = try auth.listUsers(pageToken: request.query("nextPageToken"), pageSize: size ?? 1000)
        var members: [(String, JSONValue)] = [("users", .array(page.users.map(FirebaseWire.userRecord)))]
        if let next = page.nextPageToken { members.append(("nextPageToken", .string(next))) }
        return FirebaseWire.answer("identitytoolkit#DownloadAccountResponse", members)
    }

    /// `{expression: [{email}|{userId}], limit?, offset?, returnUserInfo?}` → `{recordsCount, userInfo}`: the
    /// accounts the expressions name, or without expressions the accounts by uid from `offset` (at most 1000).
    func adminQuery(_ call: Call) throws -> JSONValue {
        let body = call.body
        var users: [AuthUser] = []
        if case .array(let expressions)? = body["expression"], !expressions.isEmpty {
            for expression in expressions {
                guard let object = expression.objectValue else {
                    throw FirebaseWire.error("INVALID_ARGUMENT", "each expression is an object")
                }
                if let email = object["email"]?.stringValue, let user = try auth.user(email: email) {
                    users.append(user)
                }
                if let uid = object["userId"]?.stringValue, let user = try? auth.user(uid: uid) { users.append(user) }
            }
        } else {
            let limit = Int(try body.integer("limit") ?? 500)
            let offset = Int(try body.integer("offset") ?? 0)
            guard (1...1000).contains(limit), (0...100_000).contains(offset) else {
                throw FirebaseWire.error("INVALID_ARGUMENT", "limit is 1 to 1000, offset 0 to 100000")
            }
            var token: String? = nil
            var all: [AuthUser] = []
            repeat {
                let page = try auth.listUsers(pageToken: token, pageSize: 1000)
                all += page.users
                token = page.nextPageToken
            } while token != nil && all.count < offset + limit
            users = Array(all.dropFirst(offset).prefix(limit))
        }
        var members: [(String, JSONValue)] = [("recordsCount", .string(String(users.count)))]
        if try body.bool("returnUserInfo") ?? true {
            members.append(("userInfo", .array(users.map(FirebaseWire.userRecord))))
        }
        return FirebaseWire.answer(nil, members)
    }
}
