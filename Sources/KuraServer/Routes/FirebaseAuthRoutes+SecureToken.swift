import KuraAuth
import KuraCore
import KuraHTTP
import KuraModel

/// `POST /securetoken.googleapis.com/v1/token`: a refresh token for a new ID token. The web SDK sends a form
/// (`grant_type=refresh_token&refresh_token=…`), the iOS SDK JSON (`{"grantType","refreshToken"}`); both, and JSON
/// with the form's names, are read.
extension FirebaseAuthRoutes {
    func registerSecureToken(on router: Router<KuraContext>) {
        let routes = self
        router.post("/securetoken.googleapis.com/v1/token", handler { try routes.refresh($0) })
    }

    /// `{access_token, expires_in, token_type, refresh_token, id_token, user_id, project_id}`, `expires_in` a string.
    func refresh(_ call: Call) throws -> JSONValue {
        let body = call.body
        let grant = try body.string("grant_type") ?? body.string("grantType")
        guard let grant, !grant.isEmpty else { throw FirebaseWire.error("MISSING_GRANT_TYPE") }
        guard grant == "refresh_token" else { throw FirebaseWire.error("INVALID_GRANT_TYPE") }
        let token = try body.string("refresh_token") ?? body.string("refreshToken")
        guard let token, !token.isEmpty else { throw FirebaseWire.error("MISSING_REFRESH_TOKEN") }
        let result = try accounts.refresh(refreshToken: token, request: call.request)
        return FirebaseWire.answer(
            nil,
            [
                ("access_token", .string(result.idToken)), ("expires_in", .string(String(result.expiresIn))),
                ("token_type", "Bearer"), ("refresh_token", .string(result.refreshToken)),
                ("id_token", .string(result.idToken)), ("user_id", .string(result.user.uid)),
                ("project_id", .string(compat.firebaseProjectId)),
            ])
    }
}
