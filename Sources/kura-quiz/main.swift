import Foundation
import KuraClient
import KuraQuiz

// kura-quiz: "7位を当てろ！" in a terminal, on KuraClient and KuraQuiz (the app logic an iOS app reuses). Quizzes
// live at quizzes/{id}; scores at quizScores/{uid} (apps/quiz/README.md).

let usage = """
    usage: kura-quiz [--server URL] [--session FILE] COMMAND
      list                    list the quizzes (ID, title, plays)
      play [ID] [--seed N]    play a quiz (a random one without ID): pick the 7th of four, then see the ranking;
                              reads the choice (1-4) from standard input
      show ID                 show a quiz's whole ranking, 1 to 10
      leaderboard             the players with the most quizzes answered correctly
      signup EMAIL PASSWORD [NAME]
                              create an account and sign in; answers played signed out join it
      login EMAIL PASSWORD    sign in; answers played signed out join the account
      logout                  sign out
      whoami                  the signed-in player and their score
      import [FILE] (--admin-key KEY | --admin-key-file FILE) [--update]
                              import quizzes (default apps/quiz/data/quizzes.json) with the admin key: creates the
                              missing ones; --update also rewrites those whose content differs (plays are kept).
                              Re-running changes nothing.
      seed-json [ID]          print the seed app's JSON (the list, or one quiz) for these quizzes
    The server defaults to $KURA_SERVER or http://127.0.0.1:8090, the session file (mode 0600) to
    $KURA_QUIZ_SESSION or ~/.config/kura-quiz/session.json. Answers played signed out are kept next to it
    (anonymous-answers.json) until a sign-in. Output is in Japanese when $LANG starts with "ja".
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
    var command: String
    var arguments: [String]
    var options: [String: String]
    var flags: Set<String>

    static let valued: Set<String> = ["--server", "--session", "--seed", "--admin-key", "--admin-key-file"]
    static let boolean: Set<String> = ["--update"]

    init(_ arguments: [String], environment: [String: String]) throws {
        var options: [String: String] = [:]
        var flags = Set<String>()
        var positional: [String] = []
        var rest = arguments[...]
        while let first = rest.popFirst() {
            if first == "--help" || first == "-h" {
                positional = ["help"]
                break
            }
            if Self.valued.contains(first) {
                guard let value = rest.popFirst() else { throw UsageError(description: "\(first) needs a value") }
                options[first] = value
            } else if Self.boolean.contains(first) {
                flags.insert(first)
            } else if first.hasPrefix("--") {
                throw UsageError(description: "unknown option \(first)")
            } else {
                positional.append(first)
            }
        }
        let server = options["--server"] ?? environment["KURA_SERVER"] ?? "http://127.0.0.1:8090"
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https" else {
            throw UsageError(description: "--server must be an http(s) URL")
        }
        let session =
            options["--session"] ?? environment["KURA_QUIZ_SESSION"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config/kura-quiz/session.json")
            .path
        guard let command = positional.first else { throw UsageError(description: "no command") }
        self.server = url
        self.session = URL(fileURLWithPath: session)
        self.command = command
        self.arguments = Array(positional.dropFirst())
        self.options = options
        self.flags = flags
    }
}

/// Japanese or English sentences, from $LANG.
struct Words {
    let ja: Bool

    func callAsFunction(_ japanese: String, _ english: String) -> String { ja ? japanese : english }
}

/// The answers played signed out, kept in a file until a sign-in uploads them.
struct AnonymousAnswers {
    let file: URL

    struct Answer: Codable {
        var quiz: String
        var pick: Int
        var at: Date
    }

    func load() -> [Answer] {
        guard let data = try? Data(contentsOf: file) else { return [] }
        return (try? JSONDecoder().decode([Answer].self, from: data)) ?? []
    }

    func add(_ answer: Answer) throws {
        var answers = load()
        guard !answers.contains(where: { $0.quiz == answer.quiz }) else { return }
        answers.append(answer)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(answers).write(to: file, options: .atomic)
    }

    func clear() { try? FileManager.default.removeItem(at: file) }
}

struct QuizApp {
    let invocation: Invocation
    let kura: Kura
    let book: QuizBook
    let words: Words
    let anonymous: AnonymousAnswers

    init(_ invocation: Invocation, environment: [String: String]) {
        self.invocation = invocation
        kura = Kura(url: invocation.server, settings: .init(session: .file(invocation.session)))
        book = QuizBook(kura: kura)
        words = Words(ja: (environment["LANG"] ?? "").lowercased().hasPrefix("ja"))
        anonymous = AnonymousAnswers(
            file: invocation.session.deletingLastPathComponent().appendingPathComponent("anonymous-answers.json"))
    }

    func run() async throws {
        let arguments = invocation.arguments
        switch (invocation.command, arguments.count) {
        case ("help", _):
            say(usage + "\n")
        case ("list", 0):
            let quizzes = try await book.quizzes()
            if quizzes.isEmpty { say(words("クイズはまだありません。\n", "There are no quizzes yet.\n")) }
            for quiz in quizzes {
                say("\(quiz.id.padding(toLength: 4, withPad: " ", startingAt: 0)) \(title(quiz))  ")
                say(words("（\(quiz.plays)回プレイ）\n", "(played \(quiz.plays) times)\n"))
            }
        case ("play", 0...1):
            try await play(arguments.first)
        case ("show", 1):
            guard let quiz = try await book.quiz(id: arguments[0]) else { throw notFound(arguments[0]) }
            say(title(quiz) + "\n" + ranking(quiz, pick: nil))
        case ("leaderboard", 0):
            let standings = try await book.leaderboard()
            if standings.isEmpty { say(words("まだ誰も成績を登録していません。\n", "Nobody has a score yet.\n")) }
            let me = kura.auth.currentUser?.uid
            for row in standings {
                let mark = row.uid == me ? words("（あなた）", " (you)") : ""
                say(
                    words(
                        "\(row.position)位 \(row.name)\(mark)  \(row.totals.played)問中\(row.totals.correct)問正解\n",
                        "#\(row.position) \(row.name)\(mark)  \(row.totals.correct) of \(row.totals.played) correct\n"))
            }
        case ("signup", 2...3):
            let result = try await kura.auth.createUser(withEmail: arguments[0], password: arguments[1])
            if arguments.count == 3 { try await result.user.updateDisplayName(arguments[2]) }
            say(words("\(arguments[0])で登録しました。\n", "signed up as \(arguments[0])\n"))
            try await uploadAnonymous()
        case ("login", 2):
            try await kura.auth.signIn(withEmail: arguments[0], password: arguments[1])
            say(words("\(arguments[0])でログインしました。\n", "signed in as \(arguments[0])\n"))
            try await uploadAnonymous()
        case ("logout", 0):
            try await kura.auth.signOut()
            say(words("ログアウトしました。\n", "signed out\n"))
        case ("whoami", 0):
            guard let user = kura.auth.currentUser else {
                throw UsageError(description: words("ログインしていません。", "not signed in"))
            }
            let totals = try await book.totals(uid: user.uid)
            say(
                words(
                    "\(user.email ?? "?")（\(totals.played)問中\(totals.correct)問正解）\n",
                    "\(user.email ?? "?") (\(totals.correct) of \(totals.played) correct)\n"))
        case ("import", 0...1):
            try await importQuizzes(file: arguments.first)
        case ("seed-json", 0...1):
            try await seedJSON(arguments.first)
        default:
            throw UsageError(
                description:
                    "unknown command or wrong arguments: \(invocation.command) \(arguments.joined(separator: " "))")
        }
    }

    func title(_ quiz: Quiz) -> String { words.ja ? quiz.title : quiz.titleEn ?? quiz.title }
    func name(_ entry: Quiz.Entry) -> String { words.ja ? entry.name : entry.nameEn ?? entry.name }
    func value(_ quiz: Quiz, _ value: Double) -> String {
        QuizRules.formatNumber(value)
            + {
                let unit = words.ja ? quiz.unit : quiz.unitEn ?? quiz.unit
                return unit.isEmpty ? "" : " " + unit
            }()
    }

    func notFound(_ id: String) -> UsageError {
        UsageError(description: words("クイズ\(id)はありません。", "there is no quiz \(id)"))
    }

    /// The whole ranking, 1 to 10, with the pick and the answer marked.
    func ranking(_ quiz: Quiz, pick: Int?) -> String {
        var lines = ""
        for entry in quiz.entries {
            var marks: [String] = []
            if entry.rank == pick { marks.append(words("← あなたの答え", "← your answer")) }
            if pick != nil, entry.rank == QuizRules.answerRank { marks.append(words("★ 正解", "★ answer")) }
            let rank = words("\(entry.rank)位", "#\(entry.rank)").padding(toLength: 3, withPad: " ", startingAt: 0)
            lines += "\(rank) \(name(entry))  (\(value(quiz, entry.value)))\(marks.isEmpty ? "" : "  ")"
            lines += marks.joined(separator: " ") + "\n"
        }
        let memo = words.ja ? quiz.memo : quiz.memoEn ?? quiz.memo
        return lines + (memo.isEmpty ? "" : "\n\(memo)\n")
    }

    func play(_ id: String?) async throws {
        let quiz: Quiz
        if let id {
            guard let found = try await book.quiz(id: id) else { throw notFound(id) }
            quiz = found
        } else {
            guard let any = try await book.quizzes().randomElement() else {
                throw UsageError(description: words("クイズはまだありません。", "there are no quizzes yet"))
            }
            quiz = any
        }
        let seed: UInt32
        if let text = invocation.options["--seed"] {
            guard let value = UInt32(text) else { throw UsageError(description: "--seed must be 0…4294967295") }
            seed = value
        } else {
            seed = UInt32.random(in: 1...UInt32.max)
        }
        let order = QuizRules.choiceOrder(seed: seed)
        say("\(title(quiz))\n\(words("第7位は？", "Which is 7th?"))\n")
        for (index, rank) in order.enumerated() {
            say("  \(index + 1)) \(quiz.entry(rank: rank).map(name) ?? "—")\n")
        }
        var pick: Int?
        while pick == nil {
            say(words("番号を選んでください (1-4): ", "Your choice (1-4): "))
            guard let line = readLine() else { throw UsageError(description: words("答えがありません。", "no answer given")) }
            if let number = Int(line.trimmingCharacters(in: .whitespaces)), (1...4).contains(number) {
                pick = order[number - 1]
            }
        }
        let chosen = pick!
        let answer = quiz.entry(rank: QuizRules.answerRank).map(name) ?? "?"
        if QuizRules.isCorrect(chosen) {
            say(words("\n正解！ ⭕ \(answer)は第7位です。\n\n", "\nCorrect! ⭕ \(answer) is 7th.\n\n"))
        } else {
            let picked = quiz.entry(rank: chosen).map(name) ?? "?"
            say(
                words(
                    "\n残念！ ❌ 「\(picked)」は第\(chosen)位。第7位は「\(answer)」でした。\n\n",
                    "\nNot quite! ❌ \(picked) is ranked \(chosen). The 7th is \(answer).\n\n"))
        }
        say(ranking(quiz, pick: chosen))
        switch try await book.record(quizId: quiz.id, pick: chosen) {
        case .counted: say(words("成績を保存しました。\n", "Your score is saved.\n"))
        case .replay:
            say(words("回答済みのクイズです。最初の答えが成績に残ります。\n", "You answered this quiz before; the first answer counts.\n"))
        case .anonymous:
            try anonymous.add(.init(quiz: quiz.id, pick: chosen, at: Date()))
            say(
                words(
                    "ログインしていないため、成績はこの端末に保存しました。ログインするとアカウントに引き継がれます。\n",
                    "Not signed in: the score is kept here and joins your account when you sign in.\n"))
        }
    }

    func uploadAnonymous() async throws {
        let answers = anonymous.load()
        guard !answers.isEmpty else { return }
        let counted = try await book.upload(answers.map { ($0.quiz, $0.pick, $0.at) })
        anonymous.clear()
        say(
            words(
                "この端末の\(counted)問の成績をアカウントに引き継ぎました。\n", "\(counted) answer(s) played signed out joined your account.\n")
        )
    }

    func importQuizzes(file: String?) async throws {
        let key: String
        if let given = invocation.options["--admin-key"] {
            key = given
        } else if let path = invocation.options["--admin-key-file"] {
            key = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        } else {
            throw UsageError(
                description: "import needs --admin-key or --admin-key-file (the data directory's admin.key)")
        }
        let path = file ?? "apps/quiz/data/quizzes.json"
        let quizzes = try QuizFile.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
        let admin = AdminREST(server: invocation.server, key: key)
        let summary = try await QuizImport(admin: admin).run(quizzes, update: invocation.flags.contains("--update"))
        say("\(summary.created) created, \(summary.updated) updated, \(summary.unchanged) unchanged\n")
    }

    func seedJSON(_ id: String?) async throws {
        let rows: Any
        if let id {
            guard let quiz = try await book.quiz(id: id) else { throw notFound(id) }
            rows = quiz.seedRow
        } else {
            rows = try await book.quizzes().map(\.seedRow)
        }
        let data = try JSONSerialization.data(withJSONObject: rows, options: [.prettyPrinted, .sortedKeys])
        say(String(decoding: data, as: UTF8.self) + "\n")
    }
}

do {
    let environment = ProcessInfo.processInfo.environment
    let invocation = try Invocation(Array(CommandLine.arguments.dropFirst()), environment: environment)
    try await QuizApp(invocation, environment: environment).run()
} catch let error as UsageError {
    FileHandle.standardError.write(Data("kura-quiz: \(error.description)\n\n\(usage)\n".utf8))
    exit(2)
} catch let error as KuraError where [.invalidRefreshToken, .unauthenticated, .userDisabled].contains(error.code) {
    FileHandle.standardError.write(Data("kura-quiz: signed out (the session ended); log in again\n".utf8))
    exit(1)
} catch let error as KuraError {
    FileHandle.standardError.write(Data("kura-quiz: \(error.code): \(error.message)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("kura-quiz: \(error)\n".utf8))
    exit(1)
}
