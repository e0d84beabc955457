import Foundation
import KuraClient
import KuraTodo

// kura-todo: the seed to-do app in a terminal, on KuraClient and KuraTodo (the list's logic, shared with an iOS
// app). To-dos live at users/{uid}/todos/{id} with `title`, `done` and `createdAt` (the server's time), the layout
// the web app (apps/todo) uses; the default security rules, or apps/todo/todo.rules, keep them private.

let usage = """
    usage: kura-todo [--server URL] [--session FILE] [--cache FILE] COMMAND
      signup EMAIL PASSWORD   create an account and sign in
      login EMAIL PASSWORD    sign in
      logout                  sign out (the session is revoked on the server)
      whoami                  show the signed-in user
      add TEXT...             add a to-do
      list                    list to-dos, oldest first
      done ID                 mark a to-do done (a unique prefix of the ID is enough)
      undo ID                 mark a to-do not done
      rm ID                   delete a to-do
      watch                   show the list and redraw it whenever it changes (Ctrl-C to stop)
    The server defaults to $KURA_SERVER or http://127.0.0.1:8090; the session file (mode 0600) to
    $KURA_TODO_SESSION or ~/.config/kura-todo/session.json. With --cache (or $KURA_TODO_CACHE), an offline
    cache: list works without the server, and changes made offline are sent by a later command.
    """

/// Writes `text` to standard output at once (unbuffered, so a watcher's output reaches a pipe immediately).
func say(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }

/// A mistake on the command line: usage is printed, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
}

/// The parsed command line.
struct Invocation {
    var server: URL
    var session: URL
    var cache: URL?
    var command: String
    var arguments: [String]

    init(_ arguments: [String], environment: [String: String]) throws {
        var server = environment["KURA_SERVER"] ?? "http://127.0.0.1:8090"
        var session =
            environment["KURA_TODO_SESSION"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config/kura-todo/session.json")
            .path
        var cache = environment["KURA_TODO_CACHE"]
        var rest = arguments[...]
        while let first = rest.first, first.hasPrefix("--") {
            rest.removeFirst()
            guard let value = rest.popFirst() else { throw UsageError(description: "\(first) needs a value") }
            switch first {
            case "--server": server = value
            case "--session": session = value
            case "--cache": cache = value
            default: throw UsageError(description: "unknown option \(first)")
            }
        }
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https" else {
            throw UsageError(description: "--server must be an http(s) URL")
        }
        guard let command = rest.popFirst() else { throw UsageError(description: "no command") }
        self.server = url
        self.session = URL(fileURLWithPath: session)
        self.cache = cache.map { URL(fileURLWithPath: $0) }
        self.command = command
        self.arguments = Array(rest)
    }
}

/// The app: one `Kura` client and the signed-in user's to-do list.
struct TodoApp {
    let kura: Kura
    let list: TodoList

    init(_ invocation: Invocation) {
        kura = Kura(
            url: invocation.server,
            settings: .init(
                persistence: invocation.cache.map { .file($0) } ?? .none, session: .file(invocation.session)))
        list = TodoList(kura: kura)
    }

    func run(_ command: String, _ arguments: [String]) async throws {
        switch (command, arguments.count) {
        case ("signup", 2):
            let result = try await kura.auth.createUser(withEmail: arguments[0], password: arguments[1])
            say("signed up as \(result.user.email ?? arguments[0]) (uid \(result.user.uid))\n")
        case ("login", 2):
            let result = try await kura.auth.signIn(withEmail: arguments[0], password: arguments[1])
            say("signed in as \(result.user.email ?? arguments[0])\n")
        case ("logout", 0):
            try await kura.auth.signOut()
            say("signed out\n")
        case ("whoami", 0):
            guard let user = kura.auth.currentUser else { throw UsageError(description: "not signed in") }
            say("\(user.email ?? "?") (uid \(user.uid))\(user.isEmailVerified ? ", verified" : "")\n")
        case ("add", 1...):
            let reference = try await list.add(arguments.joined(separator: " "))
            say("added \(reference.documentID)\n")
        case ("list", 0):
            say(render(try await list.query().getDocuments()))
        case ("done", 1), ("undo", 1):
            let document = try await list.find(arguments[0])
            try await list.setDone(document, command == "done")
            say("\(command == "done" ? "done" : "not done"): \(document.documentID)\n")
        case ("rm", 1):
            let document = try await list.find(arguments[0])
            try await list.remove(document)
            say("removed \(document.documentID)\n")
        case ("watch", 0):
            try await watch()
        default:
            throw UsageError(
                description: "unknown command or wrong arguments: \(command) \(arguments.joined(separator: " "))")
        }
    }

    /// Prints the list, then again after every change, until interrupted.
    func watch() async throws {
        // Clear the screen on a terminal; elsewhere (pipes, tests) print each version of the list after a rule.
        let terminal =
            (ProcessInfo.processInfo.environment["TERM"].map { $0 != "dumb" } ?? false)
            && ProcessInfo.processInfo.environment["KURA_TODO_PLAIN"] == nil
        for try await snapshot in try list.snapshots() {
            if terminal { say("\u{1B}[2J\u{1B}[H") }
            let changes = snapshot.documentChanges.map { "\($0.type.rawValue) \($0.document.documentID)" }
            say("--- \(snapshot.count) to-do(s)\(changes.isEmpty ? "" : "; " + changes.joined(separator: ", ")) ---\n")
            say(render(snapshot))
        }
    }

    /// With the offline cache: gives queued changes (this command's, or earlier offline ones) a moment to reach
    /// the server before the process exits, and says when they have to wait for a later command.
    func sendQueuedChanges() async throws {
        guard kura.pendingWriteCount > 0 else { return }
        let sent = Task { try await kura.waitForPendingWrites() }
        let timeout = Task {
            try await Task.sleep(nanoseconds: 2_000_000_000)
            sent.cancel()
        }
        _ = try? await sent.value
        timeout.cancel()
        let left = kura.pendingWriteCount
        if left > 0 {
            FileHandle.standardError.write(
                Data("kura-todo: offline; \(left) change(s) saved locally, sent by a later command\n".utf8))
        }
    }

    func render(_ snapshot: QuerySnapshot) -> String {
        snapshot.documents.map { document in
            let todo = try? document.data(as: TodoItem.self)
            return "[\(todo?.done == true ? "x" : " ")] \(document.documentID)  \(todo?.title ?? "?")\n"
        }.joined()
    }
}

do {
    let invocation = try Invocation(
        Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
    let app = TodoApp(invocation)
    try await app.run(invocation.command, invocation.arguments)
    try await app.sendQueuedChanges()
} catch let error as TodoList.Failure {
    // Like a usage mistake (exit status 2): something on the command line names no to-do, or no one is signed in.
    let hint = error == .signedOut ? "; run `kura-todo login EMAIL PASSWORD` first" : ""
    FileHandle.standardError.write(Data("kura-todo: \(error.description)\(hint)\n".utf8))
    exit(2)
} catch let error as UsageError {
    FileHandle.standardError.write(Data("kura-todo: \(error.description)\n\n\(usage)\n".utf8))
    exit(2)
} catch let error as KuraError where [.invalidRefreshToken, .unauthenticated, .userDisabled].contains(error.code) {
    FileHandle.standardError.write(Data("kura-todo: signed out (the session ended); log in again\n".utf8))
    exit(1)
} catch let error as KuraError {
    FileHandle.standardError.write(Data("kura-todo: \(error.code): \(error.message)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("kura-todo: \(error)\n".utf8))
    exit(1)
}
