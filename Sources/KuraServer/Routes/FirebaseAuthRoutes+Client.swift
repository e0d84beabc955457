import KuraAuth
import KuraCore
import KuraHTTP
import KuraModel

/// The client endpoints: Identity Toolkit v1 (`accounts:signUp` …), and the v3 `relyingparty` paths the iOS SDK
/// sends, onto the same operations. The project-scoped admin endpoints (`+Admin`) run the same operations with
/// `Call.isAdmin`.
extension FirebaseAuthRoutes {
    typealias Operation = @Sendable (Call) throws -> JSONValue

    func registerClient(on router: Router<KuraContext>) {
        let routes = self
        let operations: [(v1: String, v3: String, Operation)] = [
            ("accounts:signUp", "signupNewUser", { try routes.signUp($0) }),
            ("accounts:signInWithPassword", "verifyPassword", { try routes.signIn($0) }),
            ("accounts:sendOobCode", "getOobConfirmationCode", { try routes.sendOobCode($0) }),
            ("accounts:resetPassword", "resetPassword", { try routes.resetPassword($0) }),
            ("accounts:update", "setAccountInfo", { try routes.update($0) }),
            ("accounts:lookup", "getAccountInfo", { try routes.lookup($0) }),
            ("accounts:delete", "deleteAccount", { try routes.delete($0) }),
        ]
        for (v1, v3, operation) in operations {
            router.post("\(Self.v1)/\(v1)", handler(operation))
            router.post("\(Self.v3)/\(v3)", handler(operation))
        }
    }

    /// `{email, password, displayName?}` → a new account, signed in. Without email and password Firebase would
    /// make an anonymous account, which Kura does not have (400 `OPERATION_NOT_ALLOWED`).
    func signUp(_ call: Call) throws -> JSONValue {
        let body = call.body
        let email = try body.string("email")
        let password = try body.string("password")
        if email == nil && password == nil {
            throw FirebaseWire.error("OPERATION_NOT_ALLOWED", "anonymous accounts are not supported")
        }
        guard let email, !email.isEmpty else { throw FirebaseWire.error("MISSING_EMAIL") }
        let (result, _) = try accounts.signUp(
            email: email, password: password ?? "", displayName: try body.string("displayName"),
            request: call.request)
        var members: [(String, JSONValue)] = [
            ("localId", .string(result.user.uid)), ("email", .string(result.user.email)),
        ]
        if let name = result.user.displayName { members.append(("displayName", .string(name))) }
        return FirebaseWire.answer("identitytoolkit#SignupNewUserResponse", members + FirebaseWire.session(result))
    }

    /// `{email, password}` → the account's new session.
    func signIn(_ call: Call) throws -> JSONValue {
        let result = try accounts.signIn(
            email: try call.body.string("email") ?? "", password: try call.body.string("password") ?? "",
            request: call.request)
        let members: [(String, JSONValue)] = [
            ("localId", .string(result.user.uid)), ("email", .string(result.user.email)),
            ("displayName", .string(result.user.displayName ?? "")), ("registered", true),
        ]
        return FirebaseWire.answer("identitytoolkit#VerifyPasswordResponse", members + FirebaseWire.session(result))
    }

    /// `VERIFY_EMAIL` with `idToken`: a verification mail to the user. `PASSWORD_RESET` with `email`: a reset mail,
    /// answered alike for every address (`AccountOperations.mailByAddress`). `VERIFY_AND_CHANGE_EMAIL` with
    /// `idToken` and `newEmail`: the address change, confirmed from a mail to the new address. The administrator's
    /// `returnOobLink: true` answers the link (`oobLink`, `oobCode`) instead of mailing it.
    func sendOobCode(_ call: Call) throws -> JSONValue {
        let body = call.body
        let kind = "identitytoolkit#GetOobConfirmationCodeResponse"
        guard let type = try body.string("requestType"), !type.isEmpty else {
            throw FirebaseWire.error("MISSING_REQ_TYPE")
        }
        if call.isAdmin, try body.bool("returnOobLink") == true {
            let codeKind: ActionCodeKind
            switch type {
            case "VERIFY_EMAIL": codeKind = .verifyEmail
            case "PASSWORD_RESET": codeKind = .passwordReset
            default: throw FirebaseWire.error("INVALID_REQ_TYPE", "links are made for VERIFY_EMAIL and PASSWORD_RESET")
            }
            guard let email = try body.string("email"), !email.isEmpty else {
                throw FirebaseWire.error("MISSING_EMAIL")
            }
            let made: (code: String, email: String)
            do { made = try auth.adminActionCode(codeKind, email: email) } catch let error as APIError
                where error.code == .userNotFound
            {
                throw FirebaseWire.error("EMAIL_NOT_FOUND")
            }
            let link = accounts.mailer.link(
                mode: codeKind == .verifyEmail ? "verifyEmail" : "resetPassword", code: made.code)
            return FirebaseWire.answer(
                kind, [("email", .string(made.email)), ("oobLink", .string(link)), ("oobCode", .string(made.code))])
        }
        switch type {
        case "VERIFY_EMAIL":
            let email = try accounts.sendVerification(
                try bodyToken(body), continueURL: try body.string("continueUrl"), request: call.request)
            return FirebaseWire.answer(kind, [("email", .string(email))])
        case "PASSWORD_RESET":
            guard let email = try body.string("email"), !email.isEmpty else {
                throw FirebaseWire.error("MISSING_EMAIL")
            }
            try accounts.mailByAddress(
                .passwordReset, .passwordReset, email: email, continueURL: try body.string("continueUrl"),
                request: call.request, environment: call.environment)
            return FirebaseWire.answer(kind, [("email", .string(email))])
        case "VERIFY_AND_CHANGE_EMAIL":
            let claims = try bodyToken(body)
            guard let newEmail = try body.string("newEmail"), !newEmail.isEmpty else {
                throw FirebaseWire.error("MISSING_NEW_EMAIL")
            }
            _ = try accounts.updateProfile(claims, ProfileUpdate(email: newEmail), request: call.request)
            return FirebaseWire.answer(kind, [("email", .string(claims.email))])
        default:
            throw FirebaseWire.error(
                "INVALID_REQ_TYPE", "Kura sends VERIFY_EMAIL, PASSWORD_RESET, VERIFY_AND_CHANGE_EMAIL")
        }
    }

    /// `{oobCode, newPassword}` sets the password; `{oobCode}` alone checks a reset code without spending it.
    func resetPassword(_ call: Call) throws -> JSONValue {
        guard let code = try call.body.string("oobCode"), !code.isEmpty else {
            throw FirebaseWire.error("MISSING_OOB_CODE")
        }
        let kind = "identitytoolkit#ResetPasswordResponse"
        if let password = try call.body.string("newPassword") {
            let user = try auth.confirmPasswordReset(code: code, newPassword: password)
            return FirebaseWire.answer(kind, [("email", .string(user.email)), ("requestType", "PASSWORD_RESET")])
        }
        let info = try auth.checkActionCode(code: code)
        guard info.kind == .passwordReset else { throw FirebaseWire.error("INVALID_OOB_CODE") }
        return FirebaseWire.answer(kind, [("email", .string(info.email)), ("requestType", "PASSWORD_RESET")])
    }

    /// `{oobCode}` applies a verification or address-change code. `{idToken, displayName?, password?, email?,
    /// deleteAttribute?}` changes the user's own account: a new password signs out every other session, a new
    /// address is confirmed from a mail to it first. The administrator's form (`localId`) is `adminUpdate`.
    func update(_ call: Call) throws -> JSONValue {
        let body = call.body
        let kind = "identitytoolkit#SetAccountInfoResponse"
        if let code = try body.string("oobCode") {
            let user = try accounts.confirmEmail(code: code)
            return FirebaseWire.answer(kind, Self.profile(user))
        }
        if call.isAdmin, body["localId"] != nil { return try adminUpdate(call) }
        let claims = try bodyToken(body)
        var update = ProfileUpdate()
        if let name = try body.string("displayName") { update.displayName = .some(name) }
        if try body.strings("deleteAttribute").contains("DISPLAY_NAME") { update.displayName = .some(nil) }
        update.password = try body.string("password")
        update.email = try body.string("email")
        let user: AuthUser
        if update.displayName == nil && update.password == nil && update.email == nil {
            user = try auth.currentUser(claims)
        } else {
            user = try accounts.updateProfile(claims, update, request: call.request).user
        }
        return FirebaseWire.answer(kind, Self.profile(user))
    }

    /// `{idToken}` → the user's record. The administrator's form (`localId`, `email` arrays) is `adminLookup`.
    func lookup(_ call: Call) throws -> JSONValue {
        if call.isAdmin { return try adminLookup(call) }
        let user = try auth.currentUser(try bodyToken(call.body))
        return FirebaseWire.answer(
            "identitytoolkit#GetAccountInfoResponse", [("users", .array([FirebaseWire.userRecord(user)]))])
    }

    /// `{idToken}` deletes the user's account (after a recent sign-in); the administrator's form takes `localId`.
    func delete(_ call: Call) throws -> JSONValue {
        if call.isAdmin {
            guard let uid = try call.body.string("localId"), !uid.isEmpty else {
                throw FirebaseWire.error("MISSING_LOCAL_ID")
            }
            try auth.deleteUser(uid: uid)
        } else {
            try auth.deleteAccount(try bodyToken(call.body))
        }
        return FirebaseWire.answer("identitytoolkit#DeleteAccountResponse", [])
    }

    /// The claims of the body's `idToken` (400 `MISSING_ID_TOKEN`, `INVALID_ID_TOKEN`, `TOKEN_EXPIRED`).
    func bodyToken(_ body: FirebaseBody) throws -> AuthClaims {
        guard let token = try body.string("idToken"), !token.isEmpty else {
            throw FirebaseWire.error("MISSING_ID_TOKEN")
        }
        return try CallerResolution.verifiedUser(token, auth: auth)
    }

    /// The members of an update answer: `localId`, `email`, `displayName`, `emailVerified`, `providerUserInfo`.
    static func profile(_ user: AuthUser) -> [(String, JSONValue)] {
        guard case .object(let record) = FirebaseWire.userRecord(user) else { return [] }
        return ["localId", "email", "displayName", "emailVerified", "providerUserInfo"].compactMap { name in
            record[name].map { (name, $0) }
        }
    }
}
