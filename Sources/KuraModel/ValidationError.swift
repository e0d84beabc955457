/// Input the model refuses: a path, field path, query or JSON text that is not valid. It carries the wire code
/// (`INVALID_PATH`, `INVALID_QUERY`, `INVALID_ARGUMENT`) and a message for humans; the server answers it 400
/// (`APIError(_:)` in KuraCore), the SDK raises it as its own `KuraError`.
public struct ValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, for programs.
    public var code: ErrorCode
    /// What was wrong, for people; never holds secrets.
    public var message: String

    /// An error with `code` and `message`.
    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    /// 400 `INVALID_ARGUMENT`.
    public static func invalidArgument(_ message: String) -> ValidationError {
        ValidationError(.invalidArgument, message)
    }
    /// 400 `INVALID_PATH`.
    public static func invalidPath(_ message: String) -> ValidationError { ValidationError(.invalidPath, message) }
    /// 400 `INVALID_QUERY`.
    public static func invalidQuery(_ message: String) -> ValidationError { ValidationError(.invalidQuery, message) }
}
