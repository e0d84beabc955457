/// A stable, machine-readable error code as it goes over the wire (`{"error":{"code":"…"}}`), spelled as
/// docs/api.md ("Error codes") lists it: Firebase's spelling where Firebase has one. The named constants below are
/// the only place the spellings are written; code compares and builds codes through them.
///
/// A struct rather than an enum so that a code this version does not know (from a newer server) still round-trips.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The wire spelling, e.g. `PERMISSION_DENIED`.
    public let rawValue: String

    /// The code spelled `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// `MALFORMED_REQUEST`: the bytes are not a valid HTTP/1.1 request (400).
    public static let malformedRequest = ErrorCode(rawValue: "MALFORMED_REQUEST")
    /// `INVALID_ARGUMENT`: a well-formed request with an unusable value (400).
    public static let invalidArgument = ErrorCode(rawValue: "INVALID_ARGUMENT")
    /// `INVALID_PATH`: a bad document or collection path (400).
    public static let invalidPath = ErrorCode(rawValue: "INVALID_PATH")
    /// `INVALID_QUERY`: a query that cannot run (400).
    public static let invalidQuery = ErrorCode(rawValue: "INVALID_QUERY")
    /// `EMAIL_EXISTS`: the address belongs to another account (400).
    public static let emailExists = ErrorCode(rawValue: "EMAIL_EXISTS")
    /// `INVALID_EMAIL`: a malformed email address (400).
    public static let invalidEmail = ErrorCode(rawValue: "INVALID_EMAIL")
    /// `WEAK_PASSWORD`: a password below the policy (400).
    public static let weakPassword = ErrorCode(rawValue: "WEAK_PASSWORD")
    /// `MISSING_PASSWORD`: no password given (400).
    public static let missingPassword = ErrorCode(rawValue: "MISSING_PASSWORD")
    /// `INVALID_LOGIN_CREDENTIALS`: wrong address or password (400).
    public static let invalidLoginCredentials = ErrorCode(rawValue: "INVALID_LOGIN_CREDENTIALS")
    /// `INVALID_OOB_CODE`: an unknown, used or stale action code (400).
    public static let invalidOOBCode = ErrorCode(rawValue: "INVALID_OOB_CODE")
    /// `EXPIRED_OOB_CODE`: an expired action code (400).
    public static let expiredOOBCode = ErrorCode(rawValue: "EXPIRED_OOB_CODE")
    /// `INVALID_CONTINUE_URI`: an action mail's `continueUrl` that is not an absolute http(s) URL (400).
    public static let invalidContinueURI = ErrorCode(rawValue: "INVALID_CONTINUE_URI")
    /// `UNAUTHORIZED_DOMAIN`: an action mail's `continueUrl` on an origin the server does not allow (400).
    public static let unauthorizedDomain = ErrorCode(rawValue: "UNAUTHORIZED_DOMAIN")
    /// `INVALID_REFRESH_TOKEN`: a bad, used or revoked refresh token (400).
    public static let invalidRefreshToken = ErrorCode(rawValue: "INVALID_REFRESH_TOKEN")
    /// `INVALID_CLAIMS`: custom claims that are not allowed (400).
    public static let invalidClaims = ErrorCode(rawValue: "INVALID_CLAIMS")
    /// `INVALID_RULES`: security rules that do not compile (400).
    public static let invalidRules = ErrorCode(rawValue: "INVALID_RULES")
    /// `UNAUTHENTICATED`: no or wrong credentials (401).
    public static let unauthenticated = ErrorCode(rawValue: "UNAUTHENTICATED")
    /// `INVALID_ID_TOKEN`: a bad or revoked ID token (401).
    public static let invalidIDToken = ErrorCode(rawValue: "INVALID_ID_TOKEN")
    /// `TOKEN_EXPIRED`: an expired ID token (401).
    public static let tokenExpired = ErrorCode(rawValue: "TOKEN_EXPIRED")
    /// `CREDENTIAL_TOO_OLD_LOGIN_AGAIN`: a sensitive change without a recent sign-in (401).
    public static let credentialTooOldLoginAgain = ErrorCode(rawValue: "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
    /// `EMAIL_NOT_VERIFIED`: the caller's address is not verified and must be (403).
    public static let emailNotVerified = ErrorCode(rawValue: "EMAIL_NOT_VERIFIED")
    /// `USER_DISABLED`: the account is disabled (403).
    public static let userDisabled = ErrorCode(rawValue: "USER_DISABLED")
    /// `PERMISSION_DENIED`: the security rules or the admin check refuse the request (403).
    public static let permissionDenied = ErrorCode(rawValue: "PERMISSION_DENIED")
    /// `ORIGIN_NOT_ALLOWED`: a CORS preflight from an origin not listed (403).
    public static let originNotAllowed = ErrorCode(rawValue: "ORIGIN_NOT_ALLOWED")
    /// `USER_NOT_FOUND`: admin APIs: no such user (404).
    public static let userNotFound = ErrorCode(rawValue: "USER_NOT_FOUND")
    /// `TOO_MANY_ATTEMPTS_TRY_LATER`: rate limited (429).
    public static let tooManyAttemptsTryLater = ErrorCode(rawValue: "TOO_MANY_ATTEMPTS_TRY_LATER")
    /// `RESOURCE_EXHAUSTED`: a listen stream carries the most targets it may (429).
    public static let resourceExhausted = ErrorCode(rawValue: "RESOURCE_EXHAUSTED")
    /// `ALREADY_EXISTS`: `create` of a document that exists (409).
    public static let alreadyExists = ErrorCode(rawValue: "ALREADY_EXISTS")
    /// `ABORTED`: a rule-checked write kept racing other writes (409).
    public static let aborted = ErrorCode(rawValue: "ABORTED")
    /// `FAILED_PRECONDITION`: a precondition does not hold (412), or a query needs a composite index (400).
    public static let failedPrecondition = ErrorCode(rawValue: "FAILED_PRECONDITION")
    /// `DOCUMENT_TOO_LARGE`: a document over 1 MiB encoded (413).
    public static let documentTooLarge = ErrorCode(rawValue: "DOCUMENT_TOO_LARGE")
    /// `NOT_FOUND`: no route for the path, or no such document (404).
    public static let notFound = ErrorCode(rawValue: "NOT_FOUND")
    /// `METHOD_NOT_ALLOWED`: the path exists, the method does not (405).
    public static let methodNotAllowed = ErrorCode(rawValue: "METHOD_NOT_ALLOWED")
    /// `REQUEST_TIMEOUT`: the request did not arrive whole in time (408).
    public static let requestTimeout = ErrorCode(rawValue: "REQUEST_TIMEOUT")
    /// `PAYLOAD_TOO_LARGE`: a body over the limit (413).
    public static let payloadTooLarge = ErrorCode(rawValue: "PAYLOAD_TOO_LARGE")
    /// `EXPECTATION_FAILED`: an `Expect` value other than `100-continue` (417).
    public static let expectationFailed = ErrorCode(rawValue: "EXPECTATION_FAILED")
    /// `HEADERS_TOO_LARGE`: request line and headers over the limit (431).
    public static let headersTooLarge = ErrorCode(rawValue: "HEADERS_TOO_LARGE")
    /// `NOT_IMPLEMENTED`: a transfer coding other than plain `chunked` (501).
    public static let notImplemented = ErrorCode(rawValue: "NOT_IMPLEMENTED")
    /// `HTTP_VERSION_NOT_SUPPORTED`: anything but HTTP/1.0 or HTTP/1.1 (505).
    public static let httpVersionNotSupported = ErrorCode(rawValue: "HTTP_VERSION_NOT_SUPPORTED")
    /// `INTERNAL`: a bug; the message holds the request id only (500).
    public static let `internal` = ErrorCode(rawValue: "INTERNAL")
    /// `UNAVAILABLE`: overloaded; retry later (503).
    public static let unavailable = ErrorCode(rawValue: "UNAVAILABLE")
    /// `INSUFFICIENT_STORAGE`: the disk (or the database's) is full; nothing was written (507).
    public static let insufficientStorage = ErrorCode(rawValue: "INSUFFICIENT_STORAGE")

    /// `OVERFLOW`: the last event of a listen stream whose client did not read fast enough (docs/realtime.md).
    public static let overflow = ErrorCode(rawValue: "OVERFLOW")

    /// Every code docs/api.md lists ("Error codes"), in its order.
    public static let documented: [ErrorCode] = [
        .malformedRequest, .invalidArgument, .invalidPath, .invalidQuery, .emailExists, .invalidEmail,
        .weakPassword, .missingPassword, .invalidLoginCredentials, .invalidOOBCode, .expiredOOBCode,
        .invalidContinueURI, .unauthorizedDomain,
        .invalidRefreshToken, .invalidClaims, .invalidRules, .unauthenticated, .invalidIDToken,
        .tokenExpired, .credentialTooOldLoginAgain, .emailNotVerified, .userDisabled, .permissionDenied,
        .originNotAllowed, .userNotFound, .tooManyAttemptsTryLater, .resourceExhausted, .alreadyExists,
        .aborted, .failedPrecondition, .documentTooLarge, .notFound, .methodNotAllowed, .requestTimeout,
        .payloadTooLarge, .expectationFailed, .headersTooLarge, .notImplemented, .httpVersionNotSupported,
        .internal, .unavailable, .insufficientStorage,
    ]
}
