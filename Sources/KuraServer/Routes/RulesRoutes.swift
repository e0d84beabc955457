import KuraCore
import KuraHTTP
import KuraModel
import KuraRules

/// `/api/admin/rules`: the security rules in force (`GET`), replacing them (`POST`), the versions published so far
/// (`/versions`, for rollback), and running a rules test table against them or a draft (`POST /api/admin/rules/test`).
/// For the admin key or users with the `admin` claim (`CallerPolicy.admin`).
struct RulesRoutes {
    let rules: SecurityRules
    let history: RulesHistory
    let callers: CallerResolution

    func register(on router: Router<KuraContext>) {
        let forAdmins = callers.routes(.admin, on: router)
        forAdmins.get("/api/admin/rules") { request, context in
            try context.offload {
                return Self.sourceResponse(rules.current.source)
            }
        }
        forAdmins.post("/api/admin/rules/test") { request, context in
            try context.offload { try Self.test(request, rules: rules) }
        }
        forAdmins.post("/api/admin/rules") { request, context in
            try context.offload {
                let previous = rules.current.source
                let published = try rules.replace(source: try Self.source(request)).source
                // The rules are in force whether or not the history could be written.
                try? history.record(previous: previous, published: published)
                return Self.sourceResponse(published)
            }
        }
        forAdmins.get("/api/admin/rules/versions") { request, context in
            try context.offload {
                let versions: [JSONValue] = try history.versions().map { version in
                    .object(
                        JSONObject([
                            ("id", .string(version.id)), ("publishTime", .string(RFC3339.format(version.micros))),
                            ("bytes", .int(Int64(version.bytes))),
                        ]))
                }
                return .json(JSONValue.object(["versions": .array(versions)]).jsonBytes)
            }
        }
        forAdmins.get("/api/admin/rules/versions/:id") { request, context in
            try context.offload {
                let id = try request.parameter("id")
                return Self.sourceResponse(try history.source(id))
            }
        }
    }

    /// `{"source"?, "table"}`: the table (`kura rules test`'s JSON, docs/rules.md) run against `source`, or against
    /// the rules in force when there is none. Changes nothing.
    static func test(_ request: Request, rules: SecurityRules) throws -> Response {
        let body = try JSONBody(request)
        try body.allowOnly(["source", "table"])
        let ruleSet: RuleSet
        if let source = try body.string("source") {
            do {
                ruleSet = try RuleSet.compile(source: source, fileName: SecurityRules.fileName)
            } catch {
                throw APIError.invalidRules(error.description)
            }
        } else {
            ruleSet = rules.current.ruleSet
        }
        guard let tableValue = body["table"] else {
            throw APIError.badRequest("the body needs 'table' (a rules test table, as `kura rules test` reads)")
        }
        let table: RulesTestTable
        do {
            table = try RulesTestTable.decode(json: String(decoding: tableValue.jsonBytes, as: UTF8.self))
        } catch {
            throw APIError.badRequest("the test table is not valid: \(error.message)")
        }
        let results = table.run(ruleSet)
        let failed = results.filter { !$0.passed }.count
        let cases: [JSONValue] = results.map { result in
            var object = JSONObject([
                ("name", .string(result.name)), ("passed", .bool(result.passed)),
                ("decision", .string(result.decision.isAllowed ? "allow" : "deny")),
            ])
            if case .deny(let reason) = result.decision { object["reason"] = .string(reason) }
            return .object(object)
        }
        return .json(
            JSONValue.object([
                "results": .array(cases), "passed": .int(Int64(results.count - failed)), "failed": .int(Int64(failed)),
            ]).jsonBytes)
    }

    /// The new rules: the body as UTF-8 text, or `{"source": "…"}` when the body is `application/json`.
    static func source(_ request: Request) throws -> String {
        if request.headers["Content-Type"]?.lowercased().hasPrefix("application/json") == true {
            let body = try JSONBody(request)
            try body.allowOnly(["source"])
            guard let source = try body.string("source") else {
                throw APIError.badRequest("the body needs 'source' (the rules text)")
            }
            return source
        }
        guard let source = String(validating: request.body, as: UTF8.self) else {
            throw APIError.badRequest("the rules must be UTF-8 text")
        }
        return source
    }

    /// `{"source": "…"}`.
    private static func sourceResponse(_ source: String) -> Response {
        .json(JSONValue.object(["source": .string(source)]).jsonBytes)
    }
}
