import KuraCore
import KuraHTTP
import KuraMail
import KuraModel

/// `GET /api/admin/outbox?status=&limit=`: the mails Kura has stored, newest first; `POST
/// /api/admin/outbox/{id}/resend` queues one again. With no SMTP relay configured
/// (the embedded default) this is where a developer finds verification and reset links. For the admin key or users
/// with the `admin` claim (`CallerPolicy.admin`).
struct OutboxRoutes {
    let mailer: Mailer
    let callers: CallerResolution

    func register(on router: Router<KuraContext>) {
        let forAdmins = callers.routes(.admin, on: router)
        forAdmins.post("/api/admin/outbox/:id/resend") { request, context in
            try context.offload {
                let id = try request.parameter("id")
                guard let copy = try mailer.resend(MailID(rawValue: id)) else {
                    throw APIError.notFound("the outbox has no mail \(id)")
                }
                return .json(JSONValue.object(["id": .string(copy.rawValue)]).jsonBytes, status: 201)
            }
        }
        forAdmins.get("/api/admin/outbox") { request, context in
            try context.offload {
                let status = try request.query("status").map { name -> OutboxStatus in
                    guard let status = OutboxStatus(rawValue: name) else {
                        let known = OutboxStatus.allCases.map(\.rawValue).joined(separator: ", ")
                        throw APIError.badRequest("status must be one of: \(known)")
                    }
                    return status
                }
                let limit =
                    try request.query("limit").map { text -> Int in
                        guard let n = Int(text), (1...1000).contains(n) else {
                            throw APIError.badRequest("limit must be an integer from 1 to 1000")
                        }
                        return n
                    } ?? 100
                let mails: [JSONValue] = try mailer.list(limit: limit, status: status).map { entry in
                    var object = JSONObject([
                        ("id", .string(entry.id.rawValue)), ("status", .string(entry.status.rawValue)),
                        ("to", .string(entry.recipient)), ("subject", .string(entry.subject)),
                        ("attempts", .int(Int64(entry.attempts))),
                        ("createTime", .string(RFC3339.format(entry.createdAt))),
                    ])
                    if let link = entry.actionLink { object["actionLink"] = .string(link) }
                    if let error = entry.lastError { object["lastError"] = .string(error) }
                    return .object(object)
                }
                return .json(JSONValue.object(["mails": .array(mails)]).jsonBytes)
            }
        }
    }
}
