import Foundation
import KuraClient
import KuraNotes

// kura-notes: the notebooks app in a terminal, on KuraClient and KuraNotes (the app logic an iOS app reuses).
// Documents live under notes/{uid} (apps/notes/README.md).

let usage = """
    usage: kura-notes [--server URL] [--session FILE] COMMAND
      signup EMAIL PASSWORD          create an account; the server mails a verification link
      login EMAIL PASSWORD           sign in
      verify                         after opening the mailed link: check the address is verified
      resend                         mail the verification link again
      logout                         sign out
      whoami                         the signed-in account
      notebooks [list]               the notebooks, with their word counts
      notebooks create NAME          a new notebook (the name is trimmed; it must be new, compared normalized)
      notebooks rename NOTEBOOK NAME rename a notebook
      notebooks delete NOTEBOOK [--yes]
                                     delete a notebook and all its words (asks first unless --yes)
      words list NOTEBOOK            the words of a notebook, with their IDs
      words add NOTEBOOK WORD [EXPLANATION]
      words edit ID WORD [EXPLANATION]
      words delete ID
      search TEXT [--in NOTEBOOK]... search every notebook (case, width and kana do not matter); each --in narrows
                                     the search to that notebook, as a token does in the web app
    NOTEBOOK is a notebook's name (compared normalized) or its ID. The server defaults to $KURA_SERVER or
    http://127.0.0.1:8090, the session file (mode 0600) to $KURA_NOTES_SESSION or
    ~/.config/kura-notes/session.json. The notebooks open once the address is verified.
    """

func say(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }

/// A mistake on the command line: usage is printed, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
}

/// The parsed command line: options anywhere, then the command and its arguments.
struct Invocation {
    var server: URL
    var session: URL
    var positional: [String]
    var notebooks: [String]
    var yes: Bool

    init(_ arguments: [String], environment: [String: String]) throws {
        var options: [String: String] = [:]
        var notebooks: [String] = []
        var yes = false
        var positional: [String] = []
        var rest = arguments[...]
        while let first = rest.popFirst() {
            switch first {
            case "--help", "-h":
                positional = ["help"]
                rest = []
            case "--server", "--session", "--in":
                guard let value = rest.popFirst() else { throw UsageError(description: "\(first) needs a value") }
                if first == "--in" { notebooks.append(value) } else { options[first] = value }
            case "--yes":
                yes = true
            case "--":
                positional += rest
                rest = []
            default:
                if first.hasPrefix("--") { throw UsageError(description: "unknown option \(first)") }
                positional.append(first)
            }
        }
        let server = options["--server"] ?? environment["KURA_SERVER"] ?? "http://127.0.0.1:8090"
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https" else {
            throw UsageError(description: "--server must be an http(s) URL")
        }
        let session =
            options["--session"] ?? environment["KURA_NOTES_SESSION"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config/kura-notes/session.json")
            .path
        guard !positional.isEmpty else { throw UsageError(description: "no command") }
        self.server = url
        self.session = URL(fileURLWithPath: session)
        self.positional = positional
        self.notebooks = notebooks
        self.yes = yes
    }
}

struct NotesApp {
    let invocation: Invocation
    let kura: Kura
    let book: NotesBook

    init(_ invocation: Invocation) {
        self.invocation = invocation
        kura = Kura(url: invocation.server, settings: .init(session: .file(invocation.session)))
        book = NotesBook(kura: kura)
    }

    func run() async throws {
        let p = invocation.positional
        switch (p[0], p.count) {
        case ("help", _):
            say(usage + "\n")
        case ("signup", 3):
            let result = try await kura.auth.createUser(withEmail: p[1], password: p[2])
            // The server mails the link on sign-up (then this sends nothing); it sends one where that is off.
            try? await result.user.sendEmailVerification()
            say("Signed up as \(p[1]). Open the link in the verification mail, then run `kura-notes verify`.\n")
        case ("login", 3):
            let result = try await kura.auth.signIn(withEmail: p[1], password: p[2])
            say("Signed in as \(p[1]).\n")
            if !result.user.isEmailVerified { say(unverified) }
        case ("verify", 1):
            let user = try await signedIn().reload()
            guard user.isEmailVerified else { throw Failure(unverified) }
            _ = try await user.getIDToken(forcingRefresh: true)
            say("\(user.email ?? "The address") is verified. Your notebooks are open.\n")
        case ("resend", 1):
            try await signedIn().sendEmailVerification()
            say("The verification mail is on its way.\n")
        case ("logout", 1):
            try await kura.auth.signOut()
            say("Signed out.\n")
        case ("whoami", 1):
            let user = try signedIn()
            say("\(user.email ?? user.uid)\(user.isEmailVerified ? "" : " (not verified yet)")\n")
        case ("notebooks", 1),
            ("notebooks", 2) where p[1] == "list":
            try await listNotebooks()
        case ("notebooks", 3) where p[1] == "create":
            let notebook = try await book.createNotebook(named: p[2])
            say("Created the notebook “\(notebook.name)”.\n")
        case ("notebooks", 4) where p[1] == "rename":
            let notebook = try await book.notebook(p[2])
            let renamed = try await book.renameNotebook(notebook.id, to: p[3])
            say("Renamed “\(notebook.name)” to “\(renamed.name)”.\n")
        case ("notebooks", 3) where p[1] == "delete":
            try await deleteNotebook(p[2])
        case ("words", 3) where p[1] == "list":
            let notebook = try await book.notebook(p[2])
            let words = try await book.words(in: notebook.id)
            if words.isEmpty { say("“\(notebook.name)” has no words yet.\n") }
            for word in words { say(line(word)) }
        case ("words", 4...5) where p[1] == "add":
            let notebook = try await book.notebook(p[2])
            let word = try await book.addWord(p[3], explanation: p.count == 5 ? p[4] : "", to: notebook.id)
            say("Added “\(word.word)” to “\(notebook.name)” (\(word.id)).\n")
        case ("words", 4...5) where p[1] == "edit":
            try await book.editWord(p[2], word: p[3], explanation: p.count == 5 ? p[4] : "")
            say("Saved “\(NotesText.trimSpace(p[3]))”.\n")
        case ("words", 3) where p[1] == "delete":
            try await book.deleteWord(p[2])
            say("Deleted the word \(p[2]).\n")
        case ("search", 2):
            var ids: [String] = []
            for name in invocation.notebooks { ids.append(try await book.notebook(name).id) }
            let names = Dictionary(uniqueKeysWithValues: try await book.notebooks().map { ($0.id, $0.name) })
            let found = try await book.search(p[1], in: ids)
            say(found.isEmpty ? "Nothing found.\n" : "\(found.count) found.\n")
            for word in found { say("[\(names[word.notebook] ?? "?")] " + line(word)) }
        default:
            throw UsageError(description: "unknown command or wrong arguments: \(p.joined(separator: " "))")
        }
    }

    var unverified: String {
        "The address is not verified yet: open the link in the verification mail, then run `kura-notes verify`.\n"
    }

    func signedIn() throws -> User {
        guard let user = kura.auth.currentUser else { throw Failure("Not signed in: run `kura-notes login`.") }
        return user
    }

    func line(_ word: Word) -> String {
        "\(word.id)  \(word.word)" + (word.explanation.isEmpty ? "" : " — \(word.explanation)") + "\n"
    }

    func listNotebooks() async throws {
        let notebooks = try await book.notebooks()
        if notebooks.isEmpty { say("You have no notebooks yet: `kura-notes notebooks create NAME`.\n") }
        let words = try await book.words()
        for notebook in notebooks {
            let count = words.filter { $0.notebook == notebook.id }.count
            say("\(notebook.name)  (\(count) word\(count == 1 ? "" : "s"))\n")
        }
    }

    func deleteNotebook(_ name: String) async throws {
        let notebook = try await book.notebook(name)
        let count = try await book.wordCount(in: notebook.id)
        let plan = NotesText.deletePlan(words: count, limit: NotesBook.commitLimit)
        if !invocation.yes {
            say(
                "Delete “\(notebook.name)” and its \(count) word\(count == 1 ? "" : "s")? This cannot be undone. [y/N] "
            )
            guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                say("\nNothing deleted.\n")
                return
            }
        }
        if !plan.atomic { say("Deleting in \(plan.commits) commits; if it stops, delete again to finish.\n") }
        let deleted = try await book.deleteNotebook(notebook)
        say("Deleted “\(notebook.name)” and its \(deleted) word\(deleted == 1 ? "" : "s").\n")
    }
}

/// A refusal told as a sentence, exit status 1.
struct Failure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

func sentence(_ error: NotesError) -> String {
    switch error {
    case .notSignedIn: "Not signed in: run `kura-notes login`."
    case .notVerified: "The address is not verified yet: open the link in the mail, then run `kura-notes verify`."
    case .blankName: "Enter a name: it cannot be blank."
    case .nameTooLong: "Keep the name to \(NotesText.nameLimit) characters or fewer."
    case .nameTaken(let name): "You already have a notebook called “\(name)”. Choose another name."
    case .notebookNotFound(let name): "There is no notebook “\(name)”."
    case .wordNotFound(let id): "There is no word \(id)."
    case .word(.blankWord): "Enter a word: it cannot be blank."
    case .word(.wordTooLong): "Keep the word to \(NotesText.wordLimit) characters or fewer."
    case .word(.explanationTooLong): "Keep the explanation to \(NotesText.explanationLimit) characters or fewer."
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("kura-notes: \(message)\n".utf8))
    exit(1)
}

do {
    let environment = ProcessInfo.processInfo.environment
    let invocation = try Invocation(Array(CommandLine.arguments.dropFirst()), environment: environment)
    try await NotesApp(invocation).run()
} catch let error as UsageError {
    FileHandle.standardError.write(Data("kura-notes: \(error.description)\n\n\(usage)\n".utf8))
    exit(2)
} catch let error as Failure {
    fail(error.message)
} catch let error as NotesError {
    fail(sentence(error))
} catch let error as KuraError where [.invalidRefreshToken, .unauthenticated, .userDisabled].contains(error.code) {
    fail("Signed out (the session ended): log in again.")
} catch let error as KuraError where error.code == .permissionDenied {
    fail("The server refused: \(error.message). Is the address verified?")
} catch let error as KuraError {
    fail("\(error.code): \(error.message)")
} catch {
    fail("\(error)")
}
