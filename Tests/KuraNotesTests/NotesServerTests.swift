import Foundation
import KuraClient
import KuraNotes
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// What `body` returned or threw.
func attempt<T>(_ body: @Sendable () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

/// NotesBook (the logic an iOS app reuses) against an in-process server with the notes rules.
@Suite struct NotesServerTests {
    @Test func unverifiedAccountsAreRefusedByTheRulesToo() async throws {
        try await withNotesServer { server in
            let kura = client(server)
            let email = uniqueEmail()
            let result = try await kura.auth.createUser(withEmail: email, password: "secret-pw")
            let book = NotesBook(kura: kura)
            await #expect(throws: NotesError.notVerified) { try await book.notebooks() }
            // Past the client's own check, the server refuses too.
            let notebooks = kura.collection("notes").document(result.user.uid).collection("notebooks")
            await #expect { try await notebooks.getDocuments() } throws: {
                ($0 as? KuraError)?.code == .permissionDenied
            }
            await #expect {
                try await notebooks.document("n1").setData(["name": "x", "nameKey": "x", "createdAt": "t"])
            } throws: { ($0 as? KuraError)?.code == .permissionDenied }
            // The mailed link verifies the address; then the notebooks open.
            try await followVerificationLink(server, to: email)
            _ = try await kura.auth.currentUser!.reload()
            #expect(try await book.notebooks().isEmpty)
        }
    }

    @Test func notebookNamesAreUniqueAfterNormalizing() async throws {
        try await withNotesServer { server in
            let book = NotesBook(kura: try await verifiedClient(server))
            await #expect(throws: NotesError.blankName) { try await book.createNotebook(named: " \u{3000} ") }
            let english = try await book.createNotebook(named: "  English ")
            #expect(english.name == "English" && english.nameKey == "english")
            await #expect(throws: NotesError.nameTaken("ＥＮＧＬＩＳＨ")) { try await book.createNotebook(named: "ＥＮＧＬＩＳＨ") }
            let kana = try await book.createNotebook(named: "カタカナ")
            await #expect(throws: NotesError.nameTaken("かたかな")) { try await book.createNotebook(named: "かたかな") }
            // Rename moves the key: the old name is free again, the new one taken.
            await #expect(throws: NotesError.nameTaken("english")) {
                try await book.renameNotebook(kana.id, to: "english")
            }
            let renamed = try await book.renameNotebook(english.id, to: "English words")
            #expect(renamed.nameKey == "english words")
            _ = try await book.createNotebook(named: "English")
            let keys = try await book.kura.collection("notes/\(book.kura.auth.currentUser!.uid)/notebookNames")
                .getDocuments().documents.map(\.documentID).sorted()
            #expect(keys == ["english", "english words", "かたかな"])
            // A case-only rename keeps its key.
            let cased = try await book.renameNotebook(english.id, to: "ENGLISH WORDS")
            #expect(cased.name == "ENGLISH WORDS" && cased.nameKey == "english words")
        }
    }

    @Test func twoClientsRacingForOneNameOneWins() async throws {
        try await withNotesServer { server in
            let email = uniqueEmail()
            let first = try await verifiedClient(server, email: email)
            let second = client(server)
            try await second.auth.signIn(withEmail: email, password: "secret-pw")
            for round in 0..<5 {
                let name = "Race \(round)"
                async let a = attempt { try await NotesBook(kura: first).createNotebook(named: name) }
                async let b = attempt { try await NotesBook(kura: second).createNotebook(named: name.uppercased()) }
                let results = await [a, b]
                let won = results.filter { if case .success = $0 { true } else { false } }
                #expect(won.count == 1, "round \(round): \(results)")
                for case .failure(let error) in results {
                    #expect(
                        error as? NotesError == .nameTaken(name)
                            || error as? NotesError == .nameTaken(name.uppercased()))
                }
            }
            #expect(try await NotesBook(kura: first).notebooks().count == 5)
        }
    }

    @Test func wordsSearchAndDelete() async throws {
        try await withNotesServer { server in
            let book = NotesBook(kura: try await verifiedClient(server))
            let english = try await book.createNotebook(named: "English")
            let japanese = try await book.createNotebook(named: "日本語")
            let apple = try await book.addWord(" apple ", explanation: "a fruit; りんご", to: english.id)
            #expect(apple.word == "apple")
            _ = try await book.addWord("Banana", explanation: "a yellow fruit", to: english.id)
            _ = try await book.addWord("りんご", explanation: "果物", to: japanese.id)
            let coffee = try await book.addWord("コーヒー", explanation: "飲み物", to: japanese.id)
            await #expect(throws: NotesError.word(.blankWord)) {
                try await book.addWord(" ", explanation: "", to: english.id)
            }
            try await book.editWord(coffee.id, word: "コーヒー", explanation: "苦い飲み物")
            #expect(try await book.words(in: japanese.id).map(\.explanation).contains("苦い飲み物"))

            #expect(try await book.search("ﾘﾝｺﾞ").map(\.word).sorted() == ["apple", "りんご"])
            #expect(try await book.search("ﾘﾝｺﾞ", in: [japanese.id]).map(\.word) == ["りんご"])
            #expect(try await book.search("", in: [english.id]).map(\.word) == ["apple", "Banana"])
            #expect(try await book.search("ＦＲＵＩＴ").count == 2)

            try await book.deleteWord(apple.id)
            await #expect(throws: NotesError.wordNotFound(apple.id)) { try await book.deleteWord(apple.id) }
            #expect(try await book.wordCount(in: english.id) == 1)
            #expect(try await book.deleteNotebook(english) == 1)
            #expect(try await book.notebooks().map(\.name) == ["日本語"])
            #expect(try await book.words().map(\.notebook) == [japanese.id, japanese.id])
            // The name is free again.
            _ = try await book.createNotebook(named: "english")
        }
    }

    @Test func aNotebookTooBigForOneCommitIsDeletedInSeveral() async throws {
        try await withNotesServer { server in
            let kura = try await verifiedClient(server)
            let book = NotesBook(kura: kura)
            let big = try await book.createNotebook(named: "Big")
            let words = kura.collection("notes/\(kura.auth.currentUser!.uid)/words")
            for start in stride(from: 0, to: 520, by: 260) {
                let batch = kura.batch()
                for index in start..<(start + 260) {
                    batch.setData(
                        [
                            "notebook": .string(big.id), "word": .string("w\(index)"), "explanation": "",
                            "createdAt": "2026-12-03T00:00:00Z",
                        ], forDocument: words.document())
                }
                try await batch.commit()
            }
            #expect(try await book.wordCount(in: big.id) == 520)
            #expect(NotesText.deletePlan(words: 520) == .init(atomic: false, commits: 2))
            #expect(try await book.deleteNotebook(big) == 520)
            #expect(try await book.wordCount(in: big.id) == 0)
            #expect(try await book.notebooks().isEmpty)
        }
    }
}
