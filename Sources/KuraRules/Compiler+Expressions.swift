import KuraCore
import KuraModel

/// A compiled expression and, when known statically, its type (used to reject `1 && 'a'` at load).
struct CompiledExpression {
    var evaluate: Evaluator
    var type: RuleType?
}

extension Compiler {
    /// Built-in global functions and their argument counts.
    static let builtinFunctions: [String: Int] = ["exists": 1, "get": 1]

    mutating func compileExpression(_ expression: Expression, scope: CompileScope) throws(SyntaxError)
        -> CompiledExpression
    {
        let position = expression.position
        func fail(_ message: String) -> SyntaxError { SyntaxError(position: position, message: message) }
        switch expression.kind {
        case .null: return constant(.null, .null)
        case .bool(let value): return constant(.bool(value), .bool)
        case .int(let value): return constant(.int(value), .int)
        case .float(let value): return constant(.float(value), .float)
        case .string(let value): return constant(.string(value), .string)
        case .list(let elements):
            var evaluators: [Evaluator] = []
            for element in elements { evaluators.append(try compileExpression(element, scope: scope).evaluate) }
            return CompiledExpression(
                evaluate: { [evaluators] (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    var values: [RuleValue] = []
                    values.reserveCapacity(evaluators.count)
                    for evaluator in evaluators { values.append(try evaluator(evaluation)) }
                    return .list(values)
                }, type: .list)
        case .map(let entries):
            var evaluators: [(Evaluator, Evaluator)] = []
            for entry in entries {
                let key = try compileExpression(entry.key, scope: scope)
                if let type = key.type, type != .string { throw fail("map keys must be strings, found \(type)") }
                evaluators.append((key.evaluate, try compileExpression(entry.value, scope: scope).evaluate))
            }
            return CompiledExpression(
                evaluate: { [evaluators] (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    var members: [(key: String, value: RuleValue)] = []
                    for (key, value) in evaluators {
                        guard case .string(let name) = try key(evaluation) else {
                            throw RuleEvaluationError("map keys must be strings")
                        }
                        let element = try value(evaluation)
                        if let existing = members.firstIndex(where: { $0.key.bytesEqual(name) }) {
                            members[existing].value = element
                        } else {
                            members.append((name, element))
                        }
                    }
                    return .map(.members(members))
                }, type: .map)
        case .path(let segments):
            return CompiledExpression(evaluate: try compilePath(segments, scope: scope), type: .path)
        case .identifier(let name):
            return CompiledExpression(
                evaluate: try compileIdentifier(name, scope: scope, position: position), type: nil)
        case .unary(let op, let operand):
            let inner = try compileExpression(operand, scope: scope)
            let evaluate = inner.evaluate
            switch op {
            case .not:
                if let type = inner.type, type != .bool { throw fail("'!' needs a bool, found \(type)") }
                return CompiledExpression(
                    evaluate: { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                        .bool(!(try Operators.truth(evaluate(evaluation), "!")))
                    }, type: .bool)
            case .negate:
                if let type = inner.type, type != .int, type != .float {
                    throw fail("unary '-' needs a number, found \(type)")
                }
                if case .int(let value) = operand.kind, value != .min { return constant(.int(-value), .int) }
                return CompiledExpression(
                    evaluate: { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                        try Operators.negate(evaluate(evaluation))
                    }, type: inner.type)
            }
        case .binary(let op, let left, let right):
            return try compileBinary(op, left, right, scope: scope, position: position)
        case .isType(let operand, let type):
            let evaluate = try compileExpression(operand, scope: scope).evaluate
            return CompiledExpression(
                evaluate: { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    .bool(try evaluate(evaluation).isType(type))
                }, type: .bool)
        case .conditional(let condition, let then, let otherwise):
            let test = try compileExpression(condition, scope: scope)
            if let type = test.type, type != .bool { throw fail("'?:' needs a bool condition, found \(type)") }
            let yes = try compileExpression(then, scope: scope)
            let no = try compileExpression(otherwise, scope: scope)
            let (testEvaluate, yesEvaluate, noEvaluate) = (test.evaluate, yes.evaluate, no.evaluate)
            return CompiledExpression(
                evaluate: { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    try Operators.truth(testEvaluate(evaluation), "?:")
                        ? try yesEvaluate(evaluation) : try noEvaluate(evaluation)
                }, type: yes.type == no.type ? yes.type : nil)
        case .member(let base, let name):
            return try compileMember(base, name, scope: scope, position: position)
        case .index(let base, let index):
            let container = try compileExpression(base, scope: scope)
            if let type = container.type, ![.list, .map, .path].contains(type) { throw fail("cannot index \(type)") }
            let (baseEvaluate, indexEvaluate) = (
                container.evaluate, try compileExpression(index, scope: scope).evaluate
            )
            return CompiledExpression(
                evaluate: { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    try Operators.index(baseEvaluate(evaluation), indexEvaluate(evaluation))
                }, type: nil)
        case .call(let name, let arguments):
            return try compileCall(name, arguments, scope: scope, position: position)
        case .methodCall(let base, let name, let arguments):
            return try compileMethodCall(base, name, arguments, scope: scope, position: position)
        }
    }

    func constant(_ value: RuleValue, _ type: RuleType) -> CompiledExpression {
        CompiledExpression(evaluate: { (_: Evaluation) throws(RuleEvaluationError) -> RuleValue in value }, type: type)
    }

    private mutating func compileBinary(
        _ op: BinaryOperator, _ left: Expression, _ right: Expression, scope: CompileScope, position: SourcePosition
    ) throws(SyntaxError) -> CompiledExpression {
        // `request.auth != null` (the usual "signed in" test) without building the `request.auth` map.
        if op == .equal || op == .notEqual,
            (isRequestAuth(left, scope: scope) && right.kind.isNull)
                || (isRequestAuth(right, scope: scope) && left.kind.isNull)
        {
            let signedOut = op == .equal
            return CompiledExpression(
                evaluate: { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    .bool((evaluation.context.auth == nil) == signedOut)
                }, type: .bool)
        }
        let lhs = try compileExpression(left, scope: scope)
        let rhs = try compileExpression(right, scope: scope)
        let (a, b) = (lhs.evaluate, rhs.evaluate)
        func fail(_ message: String) -> SyntaxError { SyntaxError(position: position, message: message) }
        switch op {
        case .and, .or:
            for type in [lhs.type, rhs.type] {
                if let type, type != .bool { throw fail("'\(op.rawValue)' needs bool operands, found \(type)") }
            }
            let isAnd = op == .and
            return CompiledExpression(
                evaluate: { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    let first = try Operators.truth(a(evaluation), isAnd ? "&&" : "||")
                    if first != isAnd { return .bool(first) }
                    return .bool(try Operators.truth(b(evaluation), isAnd ? "&&" : "||"))
                }, type: .bool)
        case .equal, .notEqual:
            let negate = op == .notEqual
            return CompiledExpression(
                evaluate: { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    .bool(RuleValue.equal(try a(evaluation), try b(evaluation)) != negate)
                }, type: .bool)
        case .less, .lessEqual, .greater, .greaterEqual:
            for type in [lhs.type, rhs.type] {
                if let type, ![.int, .float, .string, .timestamp].contains(type) {
                    throw fail("'\(op.rawValue)' cannot compare \(type)")
                }
            }
            return CompiledExpression(
                evaluate: { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    try Operators.compare(op, a(evaluation), b(evaluation))
                }, type: .bool)
        case .in:
            if let type = rhs.type, type != .list, type != .map {
                throw fail("'in' needs a list or map, found \(type)")
            }
            return CompiledExpression(
                evaluate: { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    try Operators.contains(a(evaluation), b(evaluation))
                }, type: .bool)
        case .add, .subtract, .multiply, .divide, .remainder:
            var resultType: RuleType? = nil
            if let l = lhs.type, let r = rhs.type {
                switch (l, r) {
                case (.int, .int): resultType = .int
                case (.int, .float), (.float, .int), (.float, .float): resultType = .float
                case (.string, .string) where op == .add: resultType = .string
                case (.list, .list) where op == .add: resultType = .list
                default: throw fail("'\(op.rawValue)' cannot combine \(l) and \(r)")
                }
            } else if let known = lhs.type ?? rhs.type, ![.int, .float, .string, .list].contains(known) {
                throw fail("'\(op.rawValue)' cannot be applied to \(known)")
            }
            return CompiledExpression(
                evaluate: { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    try Operators.arithmetic(op, a(evaluation), b(evaluation))
                }, type: resultType)
        }
    }
}

extension ExpressionKind {
    /// The `null` literal.
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
