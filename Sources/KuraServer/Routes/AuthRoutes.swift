import KuraAuth
import KuraCore
import KuraHTTP
import KuraModel

/// `/api/auth/*`: sign-up, sign-in, tokens, the current account, verification and password-reset mail.
/// Everything runs on the worker pool (password hashing, token checks, the account database), except the JWKS and
/// a cached `GET /api/auth/me`. The account's own endpoints need a user's ID token (`CallerPolicy.user`; the
/// address need not be verified); the others do not read `Authorization`.
struct AuthRoutes {
    let auth: AuthService
    let callers: CallerResolution
    let mailer: AccountMailer
    let addressMails: AddressMailRequests

    /// What this API shares with Firebase's (`FirebaseAuthRoutes`): rate limits, throttle, mails.
    var accounts: AccountOperations { AccountOperations(auth: auth, mailer: mailer, addressMails: addressMails) }

    func register(on router: Router<KuraContext>) {
        let forUsers = callers.routes(.user, on: router)
        let forUsersOrAnonymous = callers.routes(.userOrAnonymous, on: router)
        let keys = auth
        let accounts = self.accounts
        router.get("/api/auth/keys") { _, _ in .json(keys.jwks().jsonBytes) }
        post(router, "/api/auth/signup", status: 201) { request in
            let body = try JSONBody(request)
            try body.allowOnly(["email", "password", "displayName"])
            let (result, mailed) = try accounts.signUp(
                email: try body.string("email") ?? "", password: try body.string("password") ?? "",
                displayName: try body.string("displayName"), request: request)
            guard mailed, case .object(var answer) = result.json else { return result.json }
            // Tells clients that a link is on its way, so the SDK's `sendEmailVerification()` need not send another.
            // With `auth.requireVerifiedEmail` the answer is `{user}` alone: no session until the address is verified.
            answer["verificationSent"] = .bool(true)
            return .object(answer)
        }
        post(router, "/api/auth/signin") { request in
            let body = try JSONBody(request)
            try body.allowOnly(["email", "password"])
            return try accounts.signIn(
                email: try body.string("email") ?? "", password: try body.string("password") ?? "", request: request
            ).json
        }
        post(router, "/api/auth/refresh") { request in
            let body = try JSONBody(request)
            try body.allowOnly(["refreshToken"])
            return try accounts.refresh(refreshToken: try body.string("refreshToken") ?? "", request: request).json
        }
        forUsers.post("/api/auth/signout") { request, context in
            let claims = try context.user()
            return try context.offload {
                let all = request.body.isEmpty ? false : (try JSONBody(request).bool("all") ?? false)
                try auth.signOut(claims, allSessions: all)
                return .json(JSONValue.object([:]).jsonBytes)
            }
        }
        forUsers.get("/api/auth/me") { request, context in
            let claims = try context.user()
            // The hot path: token and account both in memory, answered on the loop.
            if let token = context.credential, let user = auth.cachedUserJSON(token: token) {
                var body: [UInt8] = []
                body.reserveCapacity(user.count + 10)
                body.append(contentsOf: #"{"user":"#.utf8)
                body.append(contentsOf: user)
                body.append(UInt8(ascii: "}"))
                return .json(body)
            }
            return try context.offload {
                .json(JSONValue.object(["user": try auth.currentUser(claims).json]).jsonBytes)
            }
        }
        forUsers.patch("/api/auth/me") { request, context in
            let claims = try context.user()
            return try context.offload { try updateMe(request, claims) }
        }
        forUsers.delete("/api/auth/me") { request, context in
            let claims = try context.user()
            return try context.offload {
                try auth.deleteAccount(claims)
                return .noContent
            }
        }
        forUsersOrAnonymous.post("/api/auth/verify-email") { request, context in
            guard case .user(let claims) = context.caller else {
                // Without credentials, by address: for an account that cannot sign in before verifying. (Neither
                // a token nor a body: 401, as for the signed-in form.)
                guard !request.body.isEmpty else {
                    throw APIError.unauthenticated("give a signed-in user's ID token, or {\"email\"}")
                }
                return try byAddress(.verification, .verifyEmail, request, context.environment)
            }
            return try context.offload { .json(try resendVerification(request, claims).jsonBytes) }
        }
        post(router, "/api/auth/verify-email/confirm") { request in
            .object(["user": try confirmEmail(code: try code(request)).json])
        }
        post(router, "/api/auth/action-code/check") { request in
            try JSONBody(request).allowOnly(["code"])
            let info = try auth.checkActionCode(code: try code(request))
            var answer = JSONObject([("operation", .string(info.kind.rawValue)), ("email", .string(info.email))])
            if let previous = info.previousEmail { answer["previousEmail"] = .string(previous) }
            return .object(answer)
        }
        router.post("/api/auth/password-reset") { request, context in
            try byAddress(.passwordReset, .passwordReset, request, context.environment)
        }
        post(router, "/api/auth/password-reset/confirm") { request in
            let body = try JSONBody(request)
            try body.allowOnly(["code", "newPassword"])
            try auth.confirmPasswordReset(code: try code(request), newPassword: try body.string("newPassword") ?? "")
            return .object([:])
        }
    }

    /// `POST /api/auth/verify-email` by a signed-in user: a new verification mail to the account's address.
    private func resendVerification(_ request: Request, _ claims: AuthClaims) throws -> JSONValue {
        var continueURL: String?
        if !request.body.isEmpty {
            let body = try JSONBody(request)
            try body.allowOnly(["continueUrl"])
            continueURL = try body.string("continueUrl")
        }
        try accounts.sendVerification(claims, continueURL: continueURL, request: request)
        return .object([:])
    }

    /// `{"email"}` → `{}` for every well-formed address, known or not, after the same work
    /// (`AccountOperations.mailByAddress`).
    private func byAddress(
        _ kind: AddressMailRequests.Kind, _ endpoint: AuthEndpoint, _ request: Request,
        _ environment: RequestEnvironment
    ) throws -> Response {
        let body = try JSONBody(request)
        try body.allowOnly(["email", "continueUrl"])
        try accounts.mailByAddress(
            kind, endpoint, email: try body.string("email") ?? "", continueURL: try body.string("continueUrl"),
            request: request, environment: environment)
        return .json(JSONValue.object([:]).jsonBytes)
    }

    /// A verification code confirms either a new account's address or a pending address change.
    func confirmEmail(code: String) throws -> AuthUser { try accounts.confirmEmail(code: code) }

    private func updateMe(_ request: Request, _ claims: AuthClaims) throws -> Response {
        let body = try JSONBody(request)
        try body.allowOnly(["displayName", "password", "email"])
        var update = ProfileUpdate()
        if let value = body["displayName"] {
            if value == .null {
                update.displayName = .some(nil)
            } else {
                update.displayName = .some(try body.string("displayName"))
            }
        }
        update.password = try body.string("password")
        update.email = try body.string("email")
        let result = try accounts.updateProfile(claims, update, request: request)
        var out = JSONObject([("user", result.user.json)])
        if let pending = result.pendingEmail { out["pendingEmail"] = .string(pending) }
        return .json(JSONValue.object(out).jsonBytes)
    }

    private func code(_ request: Request) throws -> String {
        guard let code = try JSONBody(request).string("code"), !code.isEmpty else {
            throw APIError(.invalidOOBCode, status: 400, message: "the request needs 'code'")
        }
        return code
    }

    /// A POST handler that runs on the worker pool and answers with JSON.
    private func post(
        _ router: Router<KuraContext>, _ path: String, status: Int = 200,
        _ body: @escaping @Sendable (Request) throws -> JSONValue
    ) {
        router.post(path) { request, context in
            context.environment.offload { .json(try body(request).jsonBytes, status: status) }
        }
    }
}
