import KuraCore
import KuraHTTP
import KuraModel

/// `/api/admin/rules`: the security rules in force (`GET`) and replacing them (`POST`). For the admin key or users
/// with the `admin` claim (`CallerPolicy.admin`).
struct RulesRoutes {
    let rules: SecurityRules
    let callers: CallerResolution

    func register(on router: Router<KuraContext>) {
        router.get(
            "/api/admin/rules",
            callers.resolving(.admin) { request, context in
                try context.offload {
                    return Self.sourceResponse(rules.current.source)
                }
            })
        router.post(
            "/api/admin/rules",
            callers.resolving(.admin) { request, context in
                try context.offload {
                    return Self.sourceResponse(try rules.replace(source: try Self.source(request)).source)
                }
            })
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
