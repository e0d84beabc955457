import KuraAuth
import KuraCore
import KuraHTTP
import KuraMail
import KuraModel

/// Firebase Auth's REST API as the Auth emulator serves it (`compat.firebaseAuth`; docs/firebase.md), over Kura's
/// accounts, sessions, rate limits and mail (`AccountOperations`, `AuthService`). One file per area:
/// `+Client` (Identity Toolkit v1 `accounts:*`, and the iOS SDK's v3 `relyingparty/*` paths onto the same
/// operations), `+SecureToken` (token refresh), `+Admin` (the Admin SDKs' `projects/{p}/accounts*`), `+Emulator`
/// (the emulator's own helpers). The wire format is `FirebaseWire`'s.
///
/// Callers: the client endpoints never read `Authorization` (the ID token travels in the body, `idToken`); the
/// admin and emulator endpoints take the admin key, a user with the `admin` claim (by `CallerPolicy.admin`), or
/// `Bearer owner`, the Admin SDKs' emulator credential, from loopback or `compat.ownerAddresses` only.
struct FirebaseAuthRoutes: Sendable {
    let auth: AuthService
    let accounts: AccountOperations
    let adminKey: AdminKey
    let outbox: Mailer
    let compat: CompatConfiguration
    let developmentMode: Bool

    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"

    func register(on router: Router<KuraContext>) {
        registerClient(on: router)
        registerSecureToken(on: router)
        registerAdmin(on: router)
        registerEmulator(on: router)
    }

    /// One Firebase request as the operations see it.
    struct Call {
        let request: Request
        let body: FirebaseBody
        let environment: RequestEnvironment
        /// The administrator called (admin endpoints only); the body may then name any account (`localId`).
        let isAdmin: Bool
    }

    /// A handler on the worker pool whose errors answer in Firebase's shape; `admin` checks the caller first
    /// (`adminCaller`) and refuses the wrong project.
    func handler(admin: Bool = false, _ work: @escaping @Sendable (Call) throws -> JSONValue)
        -> Router<KuraContext>.Handler
    {
        let routes = self
        return { request, context in
            let environment = context.environment
            return environment.offload {
                do {
                    if admin {
                        try routes.adminCaller(request)
                        try routes.checkProject(request)
                    }
                    let call = Call(
                        request: request, body: try FirebaseBody(request), environment: environment, isAdmin: admin)
                    return .json(try work(call).jsonBytes)
                } catch {
                    return routes.errorResponse(error, request, environment)
                }
            }
        }
    }

    func errorResponse(_ error: any Error, _ request: Request, _ environment: RequestEnvironment) -> Response {
        FirebaseWire.response(
            for: error, request: request, environment: environment,
            minPasswordLength: auth.configuration.minPasswordLength)
    }

    /// Checks that the caller is the administrator (blocking: it may verify an ID token). The admin key and admin
    /// users by Kura's one rule (`CallerPolicy.admin`); `Bearer owner` from a trusted peer. Refusals keep Kura's
    /// statuses and codes (`FirebaseWire.CallerRefusal`).
    func adminCaller(_ request: Request) throws {
        do {
            let requireVerified = auth.configuration.requireVerifiedEmail
            let header = request.headers["Authorization"]
            guard let token = try CallerResolution.credential(request, header: header, tokenInQuery: false) else {
                try CallerPolicy.admin.check(.anonymous, admitted: false, requireVerifiedEmail: requireVerified)
                return
            }
            if token == "owner" {
                let headers = request.headers
                let forwarded =
                    headers.contains("Forwarded") || headers.contains("X-Forwarded-For")
                    || headers.contains("X-Real-IP")
                guard compat.trustsOwner(from: request.remoteAddress, forwarded: forwarded) else {
                    throw APIError.unauthenticated(
                        "'Bearer owner' is the administrator only from loopback or compat.ownerAddresses, not proxied")
                }
                return
            }
            if adminKey.matches(token) { return }
            let caller = Caller.user(try CallerResolution.verifiedUser(token, auth: auth))
            try CallerPolicy.admin.check(caller, admitted: false, requireVerifiedEmail: requireVerified)
        } catch let error as APIError {
            throw FirebaseWire.CallerRefusal(error: error)
        }
    }

    /// 400 `PROJECT_NOT_FOUND` for a project other than `compat.firebaseProjectId`: one Kura serves one project.
    private func checkProject(_ request: Request) throws {
        guard let project = request.parameters["project"], project != compat.firebaseProjectId else { return }
        throw FirebaseWire.error("PROJECT_NOT_FOUND", "this server serves project '\(compat.firebaseProjectId)'")
    }
}
