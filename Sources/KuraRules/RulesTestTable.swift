import KuraCore
import KuraModel

/// A table of rule test cases, as run by `kura rules test FILE`.
///
/// JSON shape: `{"rules": "path/to/kura.rules"?, "documents": {"/users/a": {…}}?, "cases": [case…]}` (a bare
/// array of cases is accepted too). A case is `{"name", "auth": {"uid", "token": {…}} | null, "method",
/// "path": "/users/a" | ["users","a"], "data": {…} | null, "existing": {…} | null, "time": µs?,
/// "expect": "allow" | "deny"}`; `data` becomes `request.resource.data`, `existing` becomes `resource.data`,
/// and `documents` answers `get()`/`exists()`.
public struct RulesTestTable: Sendable {
    /// One case.
    public struct Case: Sendable {
        /// Shown in pass/fail lines.
        public var name: String
        /// The operation.
        public var method: RuleMethod
        /// Document path segments.
        public var path: [String]
        /// The signed-in user, or `nil` for signed out.
        public var auth: RuleAuth?
        /// `request.resource.data`, or `nil`.
        public var data: JSONObject?
        /// `resource.data` (the stored document), or `nil` when it does not exist.
        public var existing: JSONObject?
        /// `request.time` in microseconds (default 0).
        public var time: Int64
        /// `true` when the case expects `allow`.
        public var expectAllow: Bool
    }

    /// The outcome of one case.
    public struct Result: Sendable {
        /// The case's name.
        public var name: String
        /// `true` when the decision was the expected one.
        public var passed: Bool
        /// The decision the rules made.
        public var decision: RuleDecision
        /// `true` when the case expected `allow`.
        public var expectAllow: Bool

        /// `PASS name (allow)`, or for a failure `FAIL name: expected allow, got deny (why)`.
        public var line: String {
            let got: String
            switch decision {
            case .allow: got = "allow"
            case .deny(let reason): got = reason.isEmpty ? "deny" : "deny (\(reason))"
            }
            guard !passed else { return "PASS \(name) (\(decision.isAllowed ? "allow" : "deny"))" }
            return "FAIL \(name): expected \(expectAllow ? "allow" : "deny"), got \(got)"
        }
    }

    /// The `"rules"` file path from the table, relative as written; `nil` when the rules are given separately.
    public var rulesFile: String?
    /// Documents visible to `get()` and `exists()`, keyed by path segments.
    public var documents: [[String]: JSONObject]
    /// The cases, in order.
    public var cases: [Case]

    /// Decodes a table from JSON text; throws a message naming the offending case.
    public static func decode(json: String) throws(RulesTableError) -> RulesTestTable {
        let root: JSONValue
        do { root = try JSONValue.parse(json) } catch { throw RulesTableError(message: "invalid JSON: \(error)") }
        var table = RulesTestTable(rulesFile: nil, documents: [:], cases: [])
        let caseValues: [JSONValue]
        switch root {
        case .array(let array): caseValues = array
        case .object(let object):
            try allowOnly(["rules", "documents", "cases"], in: object, "the table")
            switch object["rules"] {
            case nil, .null?: break
            case .string(let file)?: table.rulesFile = file
            default: throw RulesTableError(message: "\"rules\" must be a file name")
            }
            switch object["documents"] {
            case nil, .null?: break
            case .object(let documents)?:
                for (path, value) in documents {
                    guard let data = value.objectValue else {
                        throw RulesTableError(message: "document \(path) must be an object")
                    }
                    // "/a/b" and "a/b" name one document: two entries for it would silently drop one.
                    guard table.documents.updateValue(data, forKey: Self.segments(path)) == nil else {
                        throw RulesTableError(message: "document \(path) is listed twice")
                    }
                }
            default: throw RulesTableError(message: "\"documents\" must map paths to objects")
            }
            guard let array = object["cases"]?.arrayValue else { throw RulesTableError(message: "missing \"cases\"") }
            caseValues = array
        default: throw RulesTableError(message: "expected an object with \"cases\" or an array of cases")
        }
        for (index, value) in caseValues.enumerated() { table.cases.append(try decodeCase(value, index: index)) }
        return table
    }

    private static func decodeCase(_ value: JSONValue, index: Int) throws(RulesTableError) -> Case {
        guard let object = value.objectValue else { throw RulesTableError(message: "case \(index) is not an object") }
        let name = object["name"]?.stringValue ?? "case \(index)"
        func fail(_ message: String) -> RulesTableError { RulesTableError(message: "\(name): \(message)") }
        // A misspelt key ("existng") would otherwise be ignored, and the case would test something else.
        try allowOnly(
            ["name", "auth", "method", "path", "data", "existing", "expect", "time"], in: object, "case \(name)")
        if let given = object["name"], given.stringValue == nil { throw fail("\"name\" must be a string") }
        guard let methodName = object["method"]?.stringValue, let method = RuleMethod(rawValue: methodName) else {
            throw fail("\"method\" must be one of get, list, create, update, delete")
        }
        let path: [String]
        switch object["path"] {
        case .string(let string)?: path = segments(string)
        case .array(let array)?:
            var parts: [String] = []
            for element in array {
                guard let part = element.stringValue else { throw fail("\"path\" array must hold strings") }
                parts.append(part)
            }
            path = parts
        default: throw fail("\"path\" must be a string or an array of strings")
        }
        var auth: RuleAuth? = nil
        switch object["auth"] {
        case nil, .null?: break
        case .object(let authObject)?:
            try allowOnly(["uid", "token"], in: authObject, "\(name): \"auth\"")
            guard let uid = authObject["uid"]?.stringValue else { throw fail("\"auth.uid\" must be a string") }
            let token: JSONObject
            switch authObject["token"] {
            case nil, .null?: token = [:]
            case .object(let claims)?: token = claims
            default: throw fail("\"auth.token\" must be an object of claims")
            }
            auth = RuleAuth(uid: uid, token: token)
        default: throw fail("\"auth\" must be an object or null")
        }
        func document(_ key: String) throws(RulesTableError) -> JSONObject? {
            switch object[key] {
            case nil, .null?: return nil
            case .object(let data)?: return data
            default: throw fail("\"\(key)\" must be an object or null")
            }
        }
        let expectAllow: Bool
        switch object["expect"]?.stringValue {
        case "allow": expectAllow = true
        case "deny": expectAllow = false
        default: throw fail("\"expect\" must be \"allow\" or \"deny\"")
        }
        var time: Int64 = 0
        switch object["time"] {
        case nil, .null?: break
        case .int(let micros)?: time = micros
        default: throw fail("\"time\" must be an integer (microseconds since 1970)")
        }
        return Case(
            name: name, method: method, path: path, auth: auth, data: try document("data"),
            existing: try document("existing"), time: time, expectAllow: expectAllow)
    }

    private static func allowOnly(_ known: Set<String>, in object: JSONObject, _ context: String)
        throws(RulesTableError)
    {
        for key in object.keys where !known.contains(key) {
            throw RulesTableError(message: "\(context): unknown key \"\(key)\"")
        }
    }

    static func segments(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// Runs every case against `rules`.
    public func run(_ rules: RuleSet) -> [Result] {
        let documents = self.documents
        return cases.map { testCase in
            let id = testCase.path.last ?? ""
            let context = RuleContext(
                auth: testCase.auth, resource: testCase.existing.map { RuleDocument(id: id, data: $0) },
                requestResource: testCase.data.map { RuleDocument(id: id, data: $0) }, time: testCase.time,
                lookup: { documents[$0] })
            let decision = rules.evaluate(method: testCase.method, path: testCase.path, context: context)
            return Result(
                name: testCase.name, passed: decision.isAllowed == testCase.expectAllow, decision: decision,
                expectAllow: testCase.expectAllow)
        }
    }
}

/// A malformed test table.
public struct RulesTableError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the case.
    public var message: String
    /// The message.
    public var description: String { message }
}
