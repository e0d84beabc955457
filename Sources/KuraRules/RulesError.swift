/// A static error in a rules file: it refuses to load. `description` is `file:line:col: message`.
public struct RulesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file name given to `RuleSet.compile`.
    public var fileName: String
    /// 1-based line of the offending token.
    public var line: Int
    /// 1-based column (in Unicode scalars) of the offending token.
    public var column: Int
    /// What is wrong, for humans.
    public var message: String

    /// An error at a position.
    public init(fileName: String, line: Int, column: Int, message: String) {
        self.fileName = fileName
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:col: message`.
    public var description: String { "\(fileName):\(line):\(column): \(message)" }
}

/// A position in the source, 1-based.
struct SourcePosition: Sendable, Equatable {
    var line: Int
    var column: Int
}

/// An error raised while lexing, parsing or compiling; it becomes a `RulesError` once the file name is attached.
struct SyntaxError: Error {
    var position: SourcePosition
    var message: String
}
