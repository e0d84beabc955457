import KuraModel

/// The one error that becomes an HTTP response: a stable code (`ErrorCode`, Firebase's spelling where Firebase has
/// one), an HTTP status and a message for humans. Anything thrown that is neither an `APIError` nor a model
/// `ValidationError` (answered 400) becomes an opaque 500 `INTERNAL`; see docs/api.md for the list of codes.
public struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable machine-readable code, e.g. `.notFound`, `.permissionDenied`.
    public var code: ErrorCode
    /// HTTP status the error is answered with.
    public var status: Int
    /// Human-readable explanation; never contains secrets or document data.
    public var message: String
    /// Extra response headers, e.g. `Allow` on 405 or `Retry-After` on 429.
    public var headers: [(String, String)]

    /// An error answered with `status`; prefer the named factories below, which carry docs/api.md's status.
    public init(_ code: ErrorCode, status: Int, message: String, headers: [(String, String)] = []) {
        self.code = code
        self.status = status
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status) \(code): \(message)" }

    public static func == (lhs: APIError, rhs: APIError) -> Bool {
        lhs.code == rhs.code && lhs.status == rhs.status && lhs.message == rhs.message
    }
}

/// An error of a lower layer (a database library) some of whose cases are answered as an `APIError` rather than
/// as an opaque 500: a full disk is 507 `INSUFFICIENT_STORAGE`.
public protocol AnswerableError: Error {
    /// How this error is answered; `nil`: as a bug (500, logged).
    var answer: APIError? { get }
}

extension APIError {
    /// A model `ValidationError` as it is answered: 400 with its code and message.
    public init(_ error: ValidationError) {
        self.init(error.code, status: 400, message: error.message)
    }

    /// A model `WriteRefusal` as it is answered: its status, code and message.
    public init(_ refusal: WriteRefusal) {
        self.init(refusal.code, status: refusal.status, message: refusal.message)
    }

    /// `error` as it is answered when it is an `APIError` or a model `ValidationError` or `WriteRefusal`; `nil` for
    /// anything else (which the router answers as an opaque 500).
    public init?(answering error: any Error) {
        if let error = error as? APIError {
            self = error
        } else if let error = error as? ValidationError {
            self.init(error)
        } else if let error = error as? WriteRefusal {
            self.init(error)
        } else if let error = error as? any AnswerableError, let answer = error.answer {
            self = answer
        } else {
            return nil
        }
    }

    /// The body every error is answered with: `{"error":{"code":"…","message":"…"}}`.
    public var jsonBody: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(48 + code.rawValue.utf8.count + message.utf8.count)
        out.append(contentsOf: #"{"error":{"code":"#.utf8)
        appendJSONString(code.rawValue, to: &out)
        out.append(contentsOf: #","message":"#.utf8)
        appendJSONString(message, to: &out)
        out.append(contentsOf: "}}".utf8)
        return out
    }
}

/// The named factories, one per code the server throws, with the status docs/api.md ("Error codes") gives it.
/// Account codes (`EMAIL_EXISTS`, `INVALID_OOB_CODE`…) have theirs in KuraAuth (`AuthErrors.swift`).
extension APIError {
    /// 400 with `code` (`INVALID_ARGUMENT` unless given): a well-formed request with an unusable value.
    public static func badRequest(_ message: String, code: ErrorCode = .invalidArgument) -> APIError {
        APIError(code, status: 400, message: message)
    }
    /// 400 `MALFORMED_REQUEST`: the bytes are not a valid HTTP/1.1 request.
    public static func malformedRequest(_ message: String) -> APIError {
        APIError(.malformedRequest, status: 400, message: message)
    }
    /// 400 `INVALID_PATH`.
    public static func invalidPath(_ message: String) -> APIError {
        APIError(.invalidPath, status: 400, message: message)
    }
    /// 400 `INVALID_QUERY`.
    public static func invalidQuery(_ message: String) -> APIError {
        APIError(.invalidQuery, status: 400, message: message)
    }
    /// 400 `INVALID_RULES`: security rules that do not compile.
    public static func invalidRules(_ message: String) -> APIError {
        APIError(.invalidRules, status: 400, message: message)
    }
    /// 400 `INVALID_CLAIMS`.
    public static func invalidClaims(_ message: String) -> APIError {
        APIError(.invalidClaims, status: 400, message: message)
    }
    /// 400 `FAILED_PRECONDITION`: a query needs a composite index (the message holds its definition).
    public static func needsIndex(_ message: String) -> APIError {
        APIError(.failedPrecondition, status: 400, message: message)
    }
    /// 401 `UNAUTHENTICATED`.
    public static func unauthenticated(_ message: String) -> APIError {
        APIError(.unauthenticated, status: 401, message: message)
    }
    /// 403 `PERMISSION_DENIED`.
    public static func permissionDenied(_ message: String) -> APIError {
        APIError(.permissionDenied, status: 403, message: message)
    }
    /// 403 `EMAIL_NOT_VERIFIED`.
    public static func emailNotVerified(_ message: String) -> APIError {
        APIError(.emailNotVerified, status: 403, message: message)
    }
    /// 403 `ORIGIN_NOT_ALLOWED`: a CORS preflight from an origin that is not allowed.
    public static func originNotAllowed(_ message: String) -> APIError {
        APIError(.originNotAllowed, status: 403, message: message)
    }
    /// 404 `NOT_FOUND`.
    public static func notFound(_ message: String) -> APIError {
        APIError(.notFound, status: 404, message: message)
    }
    /// 405 `METHOD_NOT_ALLOWED` with `Allow`.
    public static func methodNotAllowed(_ message: String, allow: [String]) -> APIError {
        APIError(.methodNotAllowed, status: 405, message: message, headers: [("Allow", allow.joined(separator: ", "))])
    }
    /// 408 `REQUEST_TIMEOUT`.
    public static func requestTimeout(_ message: String) -> APIError {
        APIError(.requestTimeout, status: 408, message: message)
    }
    /// 409 `ALREADY_EXISTS`: `create` of a document that exists.
    public static func alreadyExists(_ message: String) -> APIError {
        APIError(.alreadyExists, status: 409, message: message)
    }
    /// 409 `ABORTED`: a write kept racing other writes; retry.
    public static func aborted(_ message: String) -> APIError {
        APIError(.aborted, status: 409, message: message)
    }
    /// 412 `FAILED_PRECONDITION`: `If-Match`, `?exists` or a commit precondition does not hold.
    public static func failedPrecondition(_ message: String) -> APIError {
        APIError(.failedPrecondition, status: 412, message: message)
    }
    /// 413 `PAYLOAD_TOO_LARGE`.
    public static func payloadTooLarge(_ message: String) -> APIError {
        APIError(.payloadTooLarge, status: 413, message: message)
    }
    /// 413 `DOCUMENT_TOO_LARGE`.
    public static func documentTooLarge(_ message: String) -> APIError {
        APIError(.documentTooLarge, status: 413, message: message)
    }
    /// 417 `EXPECTATION_FAILED`.
    public static func expectationFailed(_ message: String) -> APIError {
        APIError(.expectationFailed, status: 417, message: message)
    }
    /// 429 `RESOURCE_EXHAUSTED`.
    public static func resourceExhausted(_ message: String) -> APIError {
        APIError(.resourceExhausted, status: 429, message: message)
    }
    /// 431 `HEADERS_TOO_LARGE`.
    public static func headersTooLarge(_ message: String) -> APIError {
        APIError(.headersTooLarge, status: 431, message: message)
    }
    /// 500 `INTERNAL`; the message holds the request id only.
    public static func internalError(requestID: String) -> APIError {
        APIError(.internal, status: 500, message: "internal error; request id \(requestID)")
    }
    /// 501 `NOT_IMPLEMENTED`.
    public static func notImplemented(_ message: String) -> APIError {
        APIError(.notImplemented, status: 501, message: message)
    }
    /// 503 `UNAVAILABLE`.
    public static func unavailable(_ message: String) -> APIError {
        APIError(.unavailable, status: 503, message: message)
    }
    /// 507 `INSUFFICIENT_STORAGE`: the disk is full, so nothing was written; reads go on.
    public static func insufficientStorage(_ message: String) -> APIError {
        APIError(.insufficientStorage, status: 507, message: message)
    }
    /// 503 `UNAVAILABLE` for a server that is busy for now, with `Retry-After: seconds`.
    public static func busy(_ message: String, retryAfterSeconds seconds: Int = 1) -> APIError {
        APIError(.unavailable, status: 503, message: message, headers: [("Retry-After", String(seconds))])
    }
    /// 505 `HTTP_VERSION_NOT_SUPPORTED`.
    public static func httpVersionNotSupported(_ message: String) -> APIError {
        APIError(.httpVersionNotSupported, status: 505, message: message)
    }
}
