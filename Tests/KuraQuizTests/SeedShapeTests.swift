import Foundation
import KuraQuiz
import KuraServerTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /api/seed/hit_7th/datalist[/{id}]`: the article's PHP answer, for its unchanged iOS client.
@Suite struct SeedShapeTests {
    /// A request without `Authorization`, as the article's client sends it.
    func get(_ server: TestKura, _ path: String) async throws -> (Int, Any?) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: "\(server.url)\(path)")!)
        return ((response as! HTTPURLResponse).statusCode, try? JSONSerialization.jsonObject(with: data))
    }

    @Test func theListAndOneQuizAsTheSeedServerAnswered() async throws {
        try await withQuizServer { server in
            let quizzes = try shippedQuizzes()
            _ = try await QuizImport(admin: AdminREST(server: server.url, key: server.adminKey))
                .run(quizzes, update: false)
            let (status, body) = try await get(server, "/api/seed/hit_7th/datalist")
            #expect(status == 200)
            let rows = try #require(body as? [[String: String]], "an array of rows whose values are all strings")
            #expect(rows.map { $0["id"]! } == quizzes.map(\.id), "in numeric ID order")
            #expect(rows.map { $0 } == quizzes.map(\.seedRow), "the rows KuraQuiz makes of the same quizzes")
            let first = rows[0]
            #expect(first["title"] == "都道府県の面積ランキング" && first["7th"] == "岐阜県")
            #expect(first["data1"] == "83,424 km²" && first["memo"]?.contains("国土地理院") == true)
            // What the article's client does with it: Int(id)! and the columns by name.
            #expect(rows.allSatisfy { Int($0["id"]!) != nil && $0.count == 23 })

            let (one, quiz) = try await get(server, "/api/seed/hit_7th/datalist/5")
            #expect(one == 200 && (quiz as? [String: String]) == quizzes[4].seedRow)
            let (missing, error) = try await get(server, "/api/seed/hit_7th/datalist/999")
            #expect(missing == 404)
            #expect(((error as? [String: Any])?["error"] as? [String: Any])?["code"] as? String == "NOT_FOUND")
        }
    }

    @Test func theCaseFileRowsMatchTheServer() async throws {
        try await withQuizServer { server in
            let data = try Data(contentsOf: quizApp.appendingPathComponent("cases.json"))
            let cases = try JSONSerialization.jsonObject(with: data) as! [String: Any]
            for item in cases["seedRows"] as! [[String: Any]] {
                var quiz = item["quiz"] as! [String: Any]
                quiz["plays"] = 0
                let id = item["id"] as! String
                let (put, _) = try await server.admin("PUT", "/api/docs/quizzes/\(id)", json: ["data": quiz])
                #expect(put == 200)
                let (status, row) = try await get(server, "/api/seed/hit_7th/datalist/\(id)")
                #expect(status == 200 && (row as? [String: String]) == item["row"] as? [String: String])
            }
        }
    }
}
