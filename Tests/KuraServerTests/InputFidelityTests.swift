import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Input is kept exactly as sent or refused with a clear error, never changed on the way in.
@Suite struct InputFidelityTests {
    @Test(
        "an encoded slash (%2F) in a document path is 400 INVALID_PATH, not a path separator",
        arguments: [
            ("PUT", "/api/docs/users/u1%2Fposts%2Fp1"),
            ("PUT", "/api/docs/users/u1%2fposts%2fp1"),
            ("PATCH", "/api/docs/users%2Fu1"),
            ("GET", "/api/docs/users%2Fu1"),
            ("GET", "/api/docs/users/u1%2Fposts"),
            ("POST", "/api/docs/users/u1%2Fposts"),
            ("DELETE", "/api/docs/users/u1%2Fposts%2Fp1"),
            ("GET", "/api/admin/users/a%2Fb"),
        ])
    func encodedSlash(method: String, target: String) throws {
        try withTestKura { server in
            try server.put("users/u1", ["name": "ann"])
            try server.put("users/u1/posts/p1", ["title": "first"])
            let body = method == "GET" || method == "DELETE" ? nil : ["data": ["title": "changed"]]
            let response = try server.request(method, target, json: body)
            #expect(response.status == 400, "\(response)")
            #expect(response.errorCode == "INVALID_PATH")
            #expect(response.body.contains("%2F"), "the message names the cause: \(response.body)")
            // Nothing changed behind the refusal.
            let post = try server.request("GET", "/api/docs/users/u1/posts/p1")
            #expect(post.status == 200 && post.version == 1, "\(post)")
        }
    }

    @Test("other percent-encoded characters in an ID still decode")
    func otherEscapes() throws {
        try withTestKura { server in
            #expect(try server.request("PUT", "/api/docs/notes/a%20b", json: ["data": ["n": 1]]).status == 200)
            let listed = try server.request("GET", "/api/docs/notes")
            #expect(listed.documentIDs == ["a b"])
        }
    }

    static let outOfRange = ["9223372036854775808", "-9223372036854775809", "123456789012345678901234567890"]

    @Test("an integer beyond 64 bits is 400 INVALID_ARGUMENT on every JSON endpoint", arguments: outOfRange)
    func integerOutOfRange(_ number: String) throws {
        try withTestKura { server in
            let json = [("Content-Type", "application/json")]
            func send(_ method: String, _ target: String, _ body: String) throws -> HTTPResponse {
                try server.request(method, target, body: Array(body.utf8), headers: json)
            }
            let bodies: [(String, String, String)] = [
                ("PUT", "/api/docs/numbers/n1", #"{"data": {"n": \#(number)}}"#),
                ("PATCH", "/api/docs/numbers/n0", #"{"data": {"n": \#(number)}}"#),
                ("POST", "/api/docs/numbers", #"{"data": {"list": [1, \#(number)]}}"#),
                (
                    "POST", "/api/commit",
                    #"{"writes": [{"op": "set", "path": "numbers/n2", "data": {"n": \#(number)}}]}"#
                ),
                (
                    "POST", "/api/query",
                    #"{"collection": "numbers", "where": [{"field": "n", "op": "==", "value": \#(number)}]}"#
                ),
                ("POST", "/api/query", #"{"collection": "numbers", "limit": \#(number)}"#),
            ]
            try server.put("numbers/n0", ["n": 0])
            for (method, target, body) in bodies {
                let response = try send(method, target, body)
                #expect(response.status == 400, "\(method) \(target): \(response)")
                #expect(response.errorCode == "INVALID_ARGUMENT", "\(method) \(target): \(response)")
                #expect(response.body.contains("64-bit"), "\(response.body)")
            }
            #expect(try server.request("GET", "/api/docs/numbers").documentIDs == ["n0"])
            #expect(try server.request("GET", "/api/docs/numbers/n0").data?["n"] as? Int == 0)
        }
    }

    @Test("the 64-bit extremes are stored exactly")
    func integerExtremes() throws {
        try withTestKura { server in
            let body = #"{"data": {"max": 9223372036854775807, "min": -9223372036854775808}}"#
            let put = try server.request(
                "PUT", "/api/docs/numbers/edge", body: Array(body.utf8), headers: [("Content-Type", "application/json")]
            )
            #expect(put.status == 200, "\(put)")
            let read = try server.request("GET", "/api/docs/numbers/edge")
            #expect(read.body.contains(#""max":9223372036854775807"#), "\(read.body)")
            #expect(read.body.contains(#""min":-9223372036854775808"#), "\(read.body)")
        }
    }

    @Test("an impossible date, a leap second or sub-microsecond digits in a time filter are refused, not changed")
    func impossibleDate() throws {
        try withTestKura { server in
            try server.put("notes/n1", ["n": 1])
            for time in [
                "2026-02-31T00:00:00Z", "2026-04-31T00:00:00Z", "2025-02-29T00:00:00Z", "2026-12-31T23:59:60Z",
                "2026-01-01T00:00:00.1234567Z",
            ] {
                let query: [String: Any] = [
                    "collection": "notes", "where": [["field": "updateTime", "op": ">=", "value": time]],
                ]
                let response = try server.request("POST", "/api/query", json: query)
                #expect(response.status == 400, "\(time): \(response)")
                #expect(response.errorCode == "INVALID_QUERY")
            }
            let leapDay: [String: Any] = [
                "collection": "notes", "where": [["field": "updateTime", "op": ">=", "value": "2024-02-29T00:00:00Z"]],
            ]
            #expect(try server.request("POST", "/api/query", json: leapDay).documentIDs == ["n1"])
            let nanos: [String: Any] = [
                "collection": "notes",
                "where": [["field": "updateTime", "op": ">=", "value": "2024-02-29T00:00:00.123456000Z"]],
            ]
            #expect(try server.request("POST", "/api/query", json: nanos).documentIDs == ["n1"])
        }
    }

    @Test("If-Match takes a version, bare or quoted, and nothing half-quoted")
    func ifMatchShape() throws {
        try withTestKura { server in
            try server.put("notes/n1", ["n": 1])
            for value in ["1\"", "\"1", "\"\"1\"\"", "1,2"] {
                let response = try server.request(
                    "PATCH", "/api/docs/notes/n1", json: ["data": ["n": 2]], headers: [("If-Match", value)])
                #expect(response.status == 400, "If-Match: \(value): \(response)")
            }
            let quoted = try server.request(
                "PATCH", "/api/docs/notes/n1", json: ["data": ["n": 2]], headers: [("If-Match", "\"1\"")])
            #expect(quoted.status == 200, "\(quoted)")
            let weak = try server.request(
                "PATCH", "/api/docs/notes/n1", json: ["data": ["n": 3]], headers: [("If-Match", "W/\"2\"")])
            #expect(weak.status == 200, "\(weak)")
            let bare = try server.request(
                "PATCH", "/api/docs/notes/n1", json: ["data": ["n": 4]], headers: [("If-Match", "3")])
            #expect(bare.status == 200, "\(bare)")
        }
    }

    @Test("admin page sizes and outbox limits out of range are refused, not clamped")
    func adminBounds() throws {
        try withTestKura { server in
            for target in [
                "/api/admin/users?pageSize=0", "/api/admin/users?pageSize=1001", "/api/admin/outbox?limit=0",
                "/api/admin/outbox?limit=5000", "/api/admin/outbox?limit=ten",
            ] {
                let response = try server.request("GET", target)
                #expect(response.status == 400, "\(target): \(response)")
                #expect(response.errorCode == "INVALID_ARGUMENT")
            }
            #expect(try server.request("GET", "/api/admin/users?pageSize=1000").status == 200)
            #expect(try server.request("GET", "/api/admin/outbox?limit=1").status == 200)
        }
    }

    @Test("a query parameter that does not decode, or comes twice, is refused rather than read as absent or ignored")
    func queryParameters() throws {
        try withTestKura { server in
            try server.put("notes/n1", ["n": 1])
            // Read as absent, ?exists=%zz dropped the create-only precondition and overwrote the document.
            let create = try server.request("PUT", "/api/docs/notes/n1?exists=%zz", json: ["data": ["n": 2]])
            #expect(create.status == 400, "\(create)")
            #expect(create.errorCode == "INVALID_ARGUMENT")
            #expect(try server.request("GET", "/api/docs/notes/n1").data?["n"] as? Int == 1)
            for target in [
                "/api/docs/notes?limit=1&limit=500", "/api/docs/notes?pageToken=%G0",
                "/api/docs/notes/n1?merge=true&merge=false",
            ] {
                let response = try server.request(
                    target.contains("n1") ? "PUT" : "GET", target,
                    json: target.contains("n1") ? ["data": ["n": 3]] : nil)
                #expect(response.status == 400, "\(target): \(response)")
                #expect(response.errorCode == "INVALID_ARGUMENT")
            }
            #expect(try server.request("GET", "/api/docs/notes?limit=1&orderBy=n").status == 200)
        }
    }
}
