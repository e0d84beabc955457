import Foundation
import KuraNotes
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// `kura-notes` end to end: the built executable against an in-process server.
@Suite struct NotesCommandLineTests {
    static let command = AppCommand("kura-notes")

    /// Runs `kura-notes` (`AppCommand.run`).
    static func run(
        _ arguments: [String], server: TestKura?, session: String, input: String = "", language: String = "C"
    ) async throws -> (Int32, String) {
        try await command.run(arguments, server: server, session: session, input: input, language: language)
    }

    @Test func helpAndMistakes() async throws {
        let session = TemporaryDirectory.uniquePath("notes") + "/session.json"
        let (status, text) = try await Self.run(["--help"], server: nil, session: session)
        #expect(status == 0)
        #expect(text.contains("notebooks create NAME") && text.contains("words add") && text.contains("search TEXT"))
        let (bad, message) = try await Self.run(["dance"], server: nil, session: session)
        #expect(bad == 2 && message.contains("unknown command"))
    }

    @Test func signUpVerifyNotebooksWordsSearchAndDelete() async throws {
        try await withNotesServer { server in
            let session = TemporaryDirectory.uniquePath("notes") + "/session.json"
            let email = uniqueEmail()
            func run(_ arguments: [String], input: String = "") async throws -> (Int32, String) {
                try await Self.run(arguments, server: server, session: session, input: input)
            }
            var (status, text) = try await run(["signup", email, "secret-pw"])
            #expect(status == 0 && text.contains("Open the link in the verification mail"), "\(text)")
            (status, text) = try await run(["notebooks"])
            #expect(status == 1 && text.contains("not verified yet"), "\(text)")
            (status, text) = try await run(["verify"])
            #expect(status == 1 && text.contains("not verified yet"), "\(text)")
            try await followVerificationLink(server, to: email)
            (status, text) = try await run(["verify"])
            #expect(status == 0 && text.contains("is verified"), "\(text)")

            (status, text) = try await run(["notebooks"])
            #expect(status == 0 && text.contains("no notebooks yet"), "\(text)")
            (status, text) = try await run(["notebooks", "create", "  English "])
            #expect(status == 0 && text.contains("Created the notebook “English”."), "\(text)")
            (status, text) = try await run(["notebooks", "create", "ＥＮＧＬＩＳＨ"])
            #expect(status == 1 && text.contains("already have a notebook called “ＥＮＧＬＩＳＨ”"), "\(text)")
            (status, text) = try await run(["notebooks", "create", "   "])
            #expect(status == 1 && text.contains("cannot be blank"), "\(text)")
            (status, text) = try await run(["notebooks", "create", "日本語"])
            #expect(status == 0, "\(text)")

            (status, text) = try await run(["words", "add", "english", "apple", "a fruit; りんご"])
            #expect(status == 0 && text.contains("Added “apple” to “English”"), "\(text)")
            (status, text) = try await run(["words", "add", "English", "Banana", "a yellow fruit"])
            (status, text) = try await run(["words", "add", "日本語", "コーヒー", "飲み物"])
            (status, text) = try await run(["words", "add", "日本語", "りんご"])
            (status, text) = try await run(["words", "list", "English"])
            #expect(status == 0 && text.contains("apple — a fruit; りんご") && text.contains("Banana"), "\(text)")
            let bananaID = text.split(separator: "\n").first { $0.contains("Banana") }!.split(separator: " ")[0]
            (status, text) = try await run(["words", "edit", String(bananaID), "banana", "a long yellow fruit"])
            #expect(status == 0 && text.contains("Saved “banana”"), "\(text)")

            (status, text) = try await run(["search", "ﾘﾝｺﾞ"])
            #expect(
                status == 0 && text.contains("2 found.") && text.contains("[English]") && text.contains("[日本語]"),
                "\(text)")
            (status, text) = try await run(["search", "ｺｰﾋｰ", "--in", "にほんご"])
            #expect(status == 1 && text.contains("There is no notebook “にほんご”."), "\(text)")
            (status, text) = try await run(["search", "", "--in", "日本語"])
            #expect(status == 0 && text.contains("2 found."), "\(text)")
            (status, text) = try await run(["search", "LONG", "--in", "english"])
            #expect(
                status == 0 && text.contains("1 found.") && text.contains("banana — a long yellow fruit"), "\(text)")

            (status, text) = try await run(["notebooks", "rename", "English", "日本語"])
            #expect(status == 1 && text.contains("already have a notebook called “日本語”"), "\(text)")
            (status, text) = try await run(["notebooks", "rename", "English", "English words"])
            #expect(status == 0 && text.contains("Renamed “English” to “English words”."), "\(text)")
            (status, text) = try await run(["notebooks"])
            #expect(text.contains("English words  (2 words)") && text.contains("日本語  (2 words)"), "\(text)")

            (status, text) = try await run(["notebooks", "delete", "English words"], input: "n\n")
            #expect(status == 0 && text.contains("and its 2 words?") && text.contains("Nothing deleted."), "\(text)")
            (status, text) = try await run(["notebooks", "delete", "English words"], input: "y\n")
            #expect(status == 0 && text.contains("Deleted “English words” and its 2 words."), "\(text)")
            (status, text) = try await run(["search", "apple"])
            #expect(status == 0 && text.contains("Nothing found."), "\(text)")

            // The account disabled elsewhere: the next command says the session ended.
            try await offPool {
                let uid = try server.signIn(email).uid
                try server.adminUpdate(uid, ["disabled": true])
            }
            (status, text) = try await run(["notebooks"])
            #expect(status == 1 && text.contains("session ended"), "\(text)")
        }
    }
}
