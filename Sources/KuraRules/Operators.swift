import KuraCore
import KuraModel

/// Runtime semantics of the operators. Every function throws a `RuleEvaluationError` on a type mismatch.
enum Operators {
    static func truth(_ value: RuleValue, _ op: String) throws(RuleEvaluationError) -> Bool {
        guard case .bool(let bool) = value else {
            throw RuleEvaluationError("'\(op)' needs a bool, found \(value.typeName)")
        }
        return bool
    }

    static func negate(_ value: RuleValue) throws(RuleEvaluationError) -> RuleValue {
        switch value {
        case .int(let int):
            guard int != .min else { throw RuleEvaluationError("integer overflow") }
            return .int(-int)
        case .float(let float): return .float(-float)
        default: throw RuleEvaluationError("unary '-' needs a number, found \(value.typeName)")
        }
    }

    static func arithmetic(_ op: BinaryOperator, _ lhs: RuleValue, _ rhs: RuleValue) throws(RuleEvaluationError)
        -> RuleValue
    {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)):
            let result: (partialValue: Int64, overflow: Bool)
            switch op {
            case .add: result = a.addingReportingOverflow(b)
            case .subtract: result = a.subtractingReportingOverflow(b)
            case .multiply: result = a.multipliedReportingOverflow(by: b)
            case .divide, .remainder:
                guard b != 0 else { throw RuleEvaluationError("division by zero") }
                result = op == .divide ? a.dividedReportingOverflow(by: b) : a.remainderReportingOverflow(dividingBy: b)
            default: throw RuleEvaluationError("unsupported operator '\(op.rawValue)'")
            }
            guard !result.overflow else { throw RuleEvaluationError("integer overflow") }
            return .int(result.partialValue)
        case (.int, .float), (.float, .int), (.float, .float):
            let a = number(lhs)
            let b = number(rhs)
            switch op {
            case .add: return .float(a + b)
            case .subtract: return .float(a - b)
            case .multiply: return .float(a * b)
            case .divide:
                guard b != 0 else { throw RuleEvaluationError("division by zero") }
                return .float(a / b)
            case .remainder:
                guard b != 0 else { throw RuleEvaluationError("division by zero") }
                return .float(a.truncatingRemainder(dividingBy: b))
            default: throw RuleEvaluationError("unsupported operator '\(op.rawValue)'")
            }
        case (.string(let a), .string(let b)) where op == .add:
            guard a.utf8.count + b.utf8.count <= Evaluation.maxConcatenatedLength else {
                throw RuleEvaluationError("string too long")
            }
            return .string(a + b)
        case (.list(let a), .list(let b)) where op == .add:
            guard a.count + b.count <= Evaluation.maxConcatenatedLength else {
                throw RuleEvaluationError("list too long")
            }
            return .list(a + b)
        default:
            throw RuleEvaluationError("'\(op.rawValue)' cannot combine \(lhs.typeName) and \(rhs.typeName)")
        }
    }

    private static func number(_ value: RuleValue) -> Double {
        switch value {
        case .int(let int): Double(int)
        case .float(let float): float
        default: .nan
        }
    }

    /// `< <= > >=` on numbers, strings and timestamps.
    static func compare(_ op: BinaryOperator, _ lhs: RuleValue, _ rhs: RuleValue) throws(RuleEvaluationError)
        -> RuleValue
    {
        let order: Int
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): order = a < b ? -1 : (a == b ? 0 : 1)
        case (.int(let a), .float(let b)):
            order = RuleValue.compare(a, b)
            if order == 2 { return .bool(false) }  // NaN
        case (.float(let a), .int(let b)):
            order = -RuleValue.compare(b, a)
            if order == -2 { return .bool(false) }
        case (.float(let a), .float(let b)):
            if a.isNaN || b.isNaN { return .bool(false) }
            order = a < b ? -1 : (a == b ? 0 : 1)
        case (.string(let a), .string(let b)):
            // By UTF-8 bytes, as the database orders strings; `String <` orders by canonical equivalence.
            order = a.bytesEqual(b) ? 0 : (a.bytesPrecede(b) ? -1 : 1)
        case (.timestamp(let a), .timestamp(let b)): order = a < b ? -1 : (a == b ? 0 : 1)
        default:
            throw RuleEvaluationError("'\(op.rawValue)' cannot compare \(lhs.typeName) and \(rhs.typeName)")
        }
        switch op {
        case .less: return .bool(order < 0)
        case .lessEqual: return .bool(order <= 0)
        case .greater: return .bool(order > 0)
        default: return .bool(order >= 0)
        }
    }

    /// `x in list` and `key in map`.
    static func contains(_ element: RuleValue, _ collection: RuleValue) throws(RuleEvaluationError) -> RuleValue {
        switch collection {
        case .list(let list): return .bool(list.contains { RuleValue.equal($0, element) })
        case .map(let map):
            guard case .string(let key) = element else { return .bool(false) }
            return .bool(map.contains(key))
        default: throw RuleEvaluationError("'in' needs a list or map on the right, found \(collection.typeName)")
        }
    }

    /// `a.b`
    static func member(_ base: RuleValue, _ name: String) throws(RuleEvaluationError) -> RuleValue {
        guard case .map(let map) = base else {
            throw RuleEvaluationError("cannot read field '\(name)' of \(base.typeName)")
        }
        guard let value = map[name] else { throw RuleEvaluationError("no field '\(name)'") }
        return value
    }

    /// `a[b]`
    static func index(_ base: RuleValue, _ index: RuleValue) throws(RuleEvaluationError) -> RuleValue {
        switch (base, index) {
        case (.map(let map), .string(let key)):
            guard let value = map[key] else { throw RuleEvaluationError("map has no such key") }
            return value
        case (.list(let list), .int(let position)):
            guard position >= 0, position < list.count else { throw RuleEvaluationError("list index out of range") }
            return list[Int(position)]
        case (.path(let segments), .int(let position)):
            guard position >= 0, position < segments.count else {
                throw RuleEvaluationError("path index out of range")
            }
            return .string(segments[Int(position)])
        default:
            throw RuleEvaluationError("cannot index \(base.typeName) with \(index.typeName)")
        }
    }
}
