import Foundation
import KuraClient
import KuraQuiz
import KuraServerTestSupport
import Testing

/// KuraQuiz on a real in-process server under apps/quiz/quiz.rules: the import, plays, scores, the leaderboard,
/// and what the rules refuse.
@Suite struct QuizServerTests {
    @Test func importIsIdempotentAndKeepsPlays() async throws {
        try await withQuizServer { server in
            let quizzes = try shippedQuizzes()
            let importer = QuizImport(admin: AdminREST(server: server.url, key: server.adminKey))
            let first = try await importer.run(quizzes, update: false)
            #expect(first == .init(created: quizzes.count, updated: 0, unchanged: 0))
            let versions = try await versionsOfQuizzes(server)
            let second = try await importer.run(quizzes, update: true)
            #expect(second == .init(created: 0, updated: 0, unchanged: quizzes.count))
            #expect(try await versionsOfQuizzes(server) == versions, "a second run writes nothing")

            // A play, then an edited file with --update: the content changes, the plays stay.
            let book = QuizBook(kura: client(server))
            #expect(try await book.record(quizId: "1", pick: 7) == .anonymous)
            var edited = quizzes
            edited[0].memo += " (edited)"
            let third = try await importer.run(edited, update: true)
            #expect(third == .init(created: 0, updated: 1, unchanged: quizzes.count - 1))
            let stored = try #require(try await book.quiz(id: "1"))
            #expect(stored.memo.hasSuffix("(edited)") && stored.plays == 1)
        }
    }

    @Test func playsScoresAndTheLeaderboard() async throws {
        try await withQuizServer { server in
            let importer = QuizImport(admin: AdminREST(server: server.url, key: server.adminKey))
            _ = try await importer.run(try shippedQuizzes(), update: false)

            let anonymous = QuizBook(kura: client(server))
            let list = try await anonymous.quizzes()
            #expect(list.map(\.id).prefix(3) == ["1", "2", "3"], "numeric order, not string order")
            #expect(try await anonymous.record(quizId: "2", pick: 5) == .anonymous)
            #expect(try await anonymous.quiz(id: "2")?.plays == 1)

            let alice = client(server)
            try await alice.auth.createUser(withEmail: uniqueEmail("alice"), password: "secret-pw")
            try await alice.auth.currentUser!.updateDisplayName("Alice")
            let book = QuizBook(kura: alice)
            #expect(try await book.record(quizId: "1", pick: 7) == .counted)
            #expect(try await book.record(quizId: "1", pick: 5) == .replay)
            #expect(try await book.record(quizId: "2", pick: 6) == .counted)
            #expect(try await book.totals(uid: alice.auth.currentUser!.uid) == .init(played: 2, correct: 1))
            #expect(try await book.quiz(id: "1")?.plays == 2)

            // Answers played signed out join the account after the sign-up; one it answered already does not count.
            let bob = client(server)
            try await bob.auth.createUser(withEmail: uniqueEmail("bob"), password: "secret-pw")
            let bobs = QuizBook(kura: bob)
            #expect(try await bobs.record(quizId: "3", pick: 8) == .counted)
            let uploaded = try await bobs.upload([("3", 7, Date()), ("4", 7, Date()), ("5", 7, Date())])
            #expect(uploaded == 2)
            #expect(try await bobs.totals(uid: bob.auth.currentUser!.uid) == .init(played: 3, correct: 2))

            let board = try await anonymous.leaderboard()
            let bobName = String(bob.auth.currentUser!.email!.prefix { $0 != "@" })
            #expect(board.map(\.name) == [bobName, "Alice"])
            #expect(board.map(\.position) == [1, 2])
        }
    }

    @Test func theRulesRefuseOtherWrites() async throws {
        try await withQuizServer { server in
            let importer = QuizImport(admin: AdminREST(server: server.url, key: server.adminKey))
            let quizzes = try shippedQuizzes()
            _ = try await importer.run(quizzes, update: false)
            let quizRef = { (kura: Kura) in kura.collection("quizzes").document("1") }

            let player = client(server)
            try await player.auth.createUser(withEmail: uniqueEmail(), password: "secret-pw")
            await expectDenied("a player edits a quiz") {
                try await quizRef(player).updateData(["title": "mine"])
            }
            await expectDenied("a player creates a quiz") {
                try await player.collection("quizzes").document("99").setData(quizzes[0].fields)
            }
            await expectDenied("plays jump by two") {
                try await quizRef(player).updateData(["plays": FieldValue.increment(2)])
            }
            await expectDenied("plays with another change") {
                try await quizRef(player).updateData(["plays": FieldValue.increment(1), "memo": "x"])
            }
            try await quizRef(player).updateData(["plays": FieldValue.increment(1)])
            let uid = player.auth.currentUser!.uid
            await expectDenied("an answer that lies about being correct") {
                try await player.collection("quizScores").document(uid).collection("answers").document("1")
                    .setData(["pick": 5, "correct": true, "at": "2026-01-01T00:00:00Z"])
            }
            await expectDenied("totals that jump") {
                try await player.collection("quizScores").document(uid)
                    .setData(["name": "x", "played": 100, "correct": 100])
            }
            await expectDenied("someone else's totals") {
                try await player.collection("quizScores").document("other")
                    .setData(["name": "x", "played": 1, "correct": 1])
            }

            // With the admin claim: edits are allowed, in the quiz's shape only.
            let (status, _) = try await server.admin(
                "PATCH", "/api/admin/users/\(uid)", json: ["customClaims": ["admin": true]])
            #expect(status == 200)
            var edited = quizzes[0]
            edited.title = "都道府県の面積（編集）"
            edited.plays = 1
            try await quizRef(player).setData(edited.fields)
            #expect(try await QuizBook(kura: player).quiz(id: "1")?.title == "都道府県の面積（編集）")
            var nine = edited
            nine.entries.removeLast()
            await expectDenied("nine entries") { try await quizRef(player).setData(nine.fields) }
            var text = edited.fields
            var entries = text["entries"]!.arrayValue!
            var first = entries[0].mapValue!
            first["value"] = "big"
            entries[0] = .map(first)
            text["entries"] = .array(entries)
            await expectDenied("a value that is not a number") { try await quizRef(player).setData(text) }
            var long = edited
            long.title = String(repeating: "長", count: 101)
            await expectDenied("a title over 100 characters") { try await quizRef(player).setData(long.fields) }
            var fresh = quizzes[1]
            fresh.id = "13"
            try await player.collection("quizzes").document("13").setData(fresh.fields)
            await expectDenied("a quiz ID that is not a number") {
                try await player.collection("quizzes").document("new").setData(fresh.fields)
            }
        }
    }

    func versionsOfQuizzes(_ server: TestKura) async throws -> [String: Int] {
        let (_, body) = try await server.admin("GET", "/api/docs/quizzes?limit=100")
        let documents = (body as? [String: Any])?["documents"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: documents.map { ($0["id"] as! String, $0["version"] as! Int) })
    }

    func expectDenied(_ what: String, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("\(what): allowed, expected PERMISSION_DENIED")
        } catch let error as KuraError {
            #expect(error.code == .permissionDenied, "\(what): \(error)")
        } catch {
            Issue.record("\(what): \(error)")
        }
    }
}
