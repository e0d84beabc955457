import Foundation

/// The methods values have: `s.size()`, `m.keys().hasAll([...])`, `s.matches('[a-z]+')`, …
enum Methods {
    /// Method names and their argument counts.
    static let arity: [String: Int] = [
        "size": 0, "keys": 0, "values": 0, "hasAll": 1, "hasAny": 1, "hasOnly": 1, "matches": 1, "lower": 0,
        "upper": 0, "trim": 0, "get": 2, "toMillis": 0,
    ]

    /// The receiver types each method accepts, for static checks.
    static let receivers: [String: [RuleType]] = [
        "size": [.string, .list, .map], "keys": [.map], "values": [.map], "get": [.map], "hasAll": [.list],
        "hasAny": [.list], "hasOnly": [.list], "matches": [.string], "lower": [.string], "upper": [.string],
        "trim": [.string], "toMillis": [.timestamp],
    ]

    static func call(_ name: String, _ receiver: RuleValue, _ arguments: [RuleValue], regex: CompiledRegex?)
        throws(RuleEvaluationError) -> RuleValue
    {
        switch (name, receiver) {
        case ("size", .string(let string)): return .int(Int64(string.count))
        case ("size", .list(let list)): return .int(Int64(list.count))
        case ("size", .map(let map)): return .int(Int64(map.count))
        case ("keys", .map(let map)): return .list(map.keys.map(RuleValue.string))
        case ("values", .map(let map)): return .list(map.values)
        case ("hasAll", .list(let list)):
            let wanted = try listArgument(arguments[0], name)
            return .bool(wanted.allSatisfy { item in list.contains { RuleValue.equal($0, item) } })
        case ("hasAny", .list(let list)):
            let wanted = try listArgument(arguments[0], name)
            return .bool(wanted.contains { item in list.contains { RuleValue.equal($0, item) } })
        case ("hasOnly", .list(let list)):
            let allowed = try listArgument(arguments[0], name)
            return .bool(list.allSatisfy { item in allowed.contains { RuleValue.equal($0, item) } })
        case ("matches", .string(let string)):
            let compiled: CompiledRegex
            if let regex {
                compiled = regex
            } else {
                guard case .string(let pattern) = arguments[0] else {
                    throw RuleEvaluationError("matches() needs a string pattern")
                }
                compiled = try RegexCache.shared.regex(pattern)
            }
            // No length limit: RE2 runs in time linear in the input, which a request's size already bounds.
            return .bool(compiled.matchesWhole(string))
        case ("lower", .string(let string)): return .string(string.lowercased())
        case ("upper", .string(let string)): return .string(string.uppercased())
        case ("trim", .string(let string)): return .string(string.trimmingCharacters(in: .whitespacesAndNewlines))
        case ("get", .map(let map)):
            guard case .string(let key) = arguments[0] else { throw RuleEvaluationError("get() needs a string key") }
            return map[key] ?? arguments[1]
        case ("toMillis", .timestamp(let micros)): return .int(micros / 1000)
        default:
            throw RuleEvaluationError("\(receiver.typeName) has no method '\(name)'")
        }
    }

    private static func listArgument(_ value: RuleValue, _ name: String) throws(RuleEvaluationError) -> [RuleValue] {
        guard case .list(let list) = value else {
            throw RuleEvaluationError("\(name)() needs a list argument, found \(value.typeName)")
        }
        return list
    }
}
