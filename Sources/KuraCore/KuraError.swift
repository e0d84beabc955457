import KuraModel

/// The one error that becomes an HTTP response: a stable code (Firebase's spelling where Firebase has one),
/// an HTTP status and a message for humans. Anything thrown that is not a `KuraError` becomes an opaque
/// 500 `INTERNAL`; see docs/api.md for the list of codes.
public struct KuraError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable machine-readable code, e.g. `NOT_FOUND`, `PERMISSION_DENIED`.
    public var code: String
    /// HTTP status the error is answered with.
    public var status: Int
    /// Human-readable explanation; never contains secrets or document data.
    public var message: String
    /// Extra response headers, e.g. `Allow` on 405 or `Retry-After` on 429.
    public var headers: [(String, String)]

    public init(code: String, status: Int, message: String, headers: [(String, String)] = []) {
        self.code = code
        self.status = status
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status) \(code): \(message)" }

    public static func == (lhs: KuraError, rhs: KuraError) -> Bool {
        lhs.code == rhs.code && lhs.status == rhs.status && lhs.message == rhs.message
    }
}

extension KuraError {
    public static func badRequest(_ message: String, code: String = "INVALID_ARGUMENT") -> KuraError {
        KuraError(code: code, status: 400, message: message)
    }
    /// 400 `INVALID_QUERY`.
    public static func invalidQuery(_ message: String) -> KuraError {
        KuraError(code: "INVALID_QUERY", status: 400, message: message)
    }
    public static func unauthenticated(_ message: String) -> KuraError {
        KuraError(code: "UNAUTHENTICATED", status: 401, message: message)
    }
    public static func permissionDenied(_ message: String) -> KuraError {
        KuraError(code: "PERMISSION_DENIED", status: 403, message: message)
    }
    public static func notFound(_ message: String) -> KuraError {
        KuraError(code: "NOT_FOUND", status: 404, message: message)
    }
    public static func methodNotAllowed(_ message: String, allow: [String]) -> KuraError {
        KuraError(
            code: "METHOD_NOT_ALLOWED", status: 405, message: message,
            headers: [("Allow", allow.joined(separator: ", "))])
    }
    public static func requestTimeout(_ message: String) -> KuraError {
        KuraError(code: "REQUEST_TIMEOUT", status: 408, message: message)
    }
    public static func failedPrecondition(_ message: String) -> KuraError {
        KuraError(code: "FAILED_PRECONDITION", status: 412, message: message)
    }
    public static func payloadTooLarge(_ message: String) -> KuraError {
        KuraError(code: "PAYLOAD_TOO_LARGE", status: 413, message: message)
    }
    public static func headersTooLarge(_ message: String) -> KuraError {
        KuraError(code: "HEADERS_TOO_LARGE", status: 431, message: message)
    }
    public static func internalError(requestID: String) -> KuraError {
        KuraError(code: "INTERNAL", status: 500, message: "internal error; request id \(requestID)")
    }
    public static func unavailable(_ message: String) -> KuraError {
        KuraError(code: "UNAVAILABLE", status: 503, message: message)
    }
}

extension KuraError {
    /// The body every error is answered with: `{"error":{"code":"…","message":"…"}}`.
    public var jsonBody: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(48 + code.utf8.count + message.utf8.count)
        out.append(contentsOf: #"{"error":{"code":"#.utf8)
        appendJSONString(code, to: &out)
        out.append(contentsOf: #","message":"#.utf8)
        appendJSONString(message, to: &out)
        out.append(contentsOf: "}}".utf8)
        return out
    }
}

extension KuraError {
    /// A model `ValidationError` as it is answered: 400 with its code and message.
    public init(_ error: ValidationError) {
        self.init(code: error.code.rawValue, status: 400, message: error.message)
    }

    /// `error` as it is answered when it is a `KuraError` or a model `ValidationError`; `nil` for anything else
    /// (which the router answers as an opaque 500).
    public init?(answering error: any Error) {
        if let error = error as? KuraError {
            self = error
        } else if let error = error as? ValidationError {
            self.init(error)
        } else {
            return nil
        }
    }
}
