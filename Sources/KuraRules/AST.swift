/// Binary operators, in the source spelling.
enum BinaryOperator: String, Sendable {
    case and = "&&", or = "||"
    case equal = "==", notEqual = "!=", less = "<", lessEqual = "<=", greater = ">", greaterEqual = ">="
    case `in` = "in"
    case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"
}

/// Prefix operators.
enum UnaryOperator: String, Sendable {
    case not = "!", negate = "-"
}

/// The types `x is <type>` can test.
enum RuleType: String, Sendable, CaseIterable {
    case string, int, float, number, bool, null, list, map, path, timestamp
}

/// One segment of a path literal: fixed text or `$(expression)`.
enum PathLiteralSegment: Sendable {
    case text(String)
    case expression(Expression)
}

/// An expression node with the position of its first token.
indirect enum ExpressionKind: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case list([Expression])
    case map([(key: Expression, value: Expression)])
    case path([PathLiteralSegment])
    case identifier(String)
    case unary(UnaryOperator, Expression)
    case binary(BinaryOperator, Expression, Expression)
    case isType(Expression, RuleType)
    case conditional(Expression, Expression, Expression)
    case member(Expression, String)
    case index(Expression, Expression)
    /// A call of a global function: `signedIn()`, `exists(/p)`.
    case call(String, [Expression])
    /// A method call: `name.size()`, `data.keys().hasAll([...])`.
    case methodCall(Expression, String, [Expression])
}

/// An expression and where it starts.
struct Expression: Sendable {
    var kind: ExpressionKind
    var position: SourcePosition
    /// Height of the tree below this node (a leaf is 1); the parser bounds it so that compiling and
    /// evaluating, which recurse, cannot overflow the stack.
    var depth: Int = 1
}

/// `function name(params) { let x = …; return expr; }`
struct FunctionDeclaration: Sendable {
    var name: String
    var parameters: [String]
    var lets: [(name: String, value: Expression, position: SourcePosition)]
    var body: Expression
    var position: SourcePosition
}

/// One segment of a match pattern.
enum MatchSegment: Sendable, Equatable {
    case literal(String)
    /// `{name}`: exactly one segment.
    case variable(String)
    /// `{name=**}`: zero or more segments, bound as a `/`-joined string.
    case rest(String)
}

/// The method names `allow` accepts; `read` and `write` expand to several methods.
enum AllowMethodName: String, Sendable {
    case get, list, create, update, delete, read, write
}

/// `allow <methods>: if <condition>;`
struct AllowStatement: Sendable {
    var methods: [AllowMethodName]
    var condition: Expression
    var position: SourcePosition
}

/// `match /pattern { functions, allows, nested matches }`
struct MatchBlock: Sendable {
    var segments: [MatchSegment]
    var functions: [FunctionDeclaration]
    var allows: [AllowStatement]
    var matches: [MatchBlock]
    var position: SourcePosition
}

/// A whole rules file.
struct RulesFile: Sendable {
    var version: String?
    var functions: [FunctionDeclaration]
    var matches: [MatchBlock]
}
