import KuraCore
import KuraHTTP

/// Who may use the data endpoints. Until accounts and rules exist, only the administrator: a request whose
/// `Authorization: Bearer` token is the admin key.
public struct AdminAccess: Sendable {
    let adminKey: AdminKey

    /// Throws 401 `UNAUTHENTICATED` unless `request` carries the admin key.
    func require(_ request: Request) throws {
        guard let token = request.bearerToken else {
            throw KuraError.unauthenticated("this endpoint needs 'Authorization: Bearer <admin key>'")
        }
        guard adminKey.matches(token) else { throw KuraError.unauthenticated("the bearer token is not valid") }
    }
}
