import Foundation
import KuraClient

/// The quiz's data on a Kura server through `KuraClient`, for any Swift app (the terminal's `kura-quiz`, an iOS
/// app): the list, one quiz, answers with the play count and the player's score, the leaderboard.
///
/// Collections (apps/quiz/README.md): `quizzes/{id}`; `quizScores/{uid}` (`name`, `played`, `correct`,
/// `updatedAt`) and `quizScores/{uid}/answers/{quizId}` (`pick`, `correct`, `at`), the first answer per quiz.
public struct QuizBook: Sendable {
    public let kura: Kura

    public init(kura: Kura) { self.kura = kura }

    /// Every quiz, in the order of their numeric IDs.
    public func quizzes() async throws -> [Quiz] {
        let snapshot = try await kura.collection("quizzes").getDocuments()
        return snapshot.documents.compactMap { Quiz(id: $0.documentID, fields: $0.fields) }
            .sorted { (Int($0.id) ?? Int.max, $0.id) < (Int($1.id) ?? Int.max, $1.id) }
    }

    /// One quiz; `nil` when there is none with that ID.
    public func quiz(id: String) async throws -> Quiz? {
        let snapshot = try await kura.collection("quizzes").document(id).getDocument()
        guard let fields = snapshot.fields else { return nil }
        return Quiz(id: id, fields: fields)
    }

    /// What recording an answer did to the player's score.
    public enum Recorded: Sendable, Equatable {
        /// The first answer to this quiz: it counts.
        case counted
        /// The player answered this quiz before: the first answer stays.
        case replay
        /// Nobody is signed in: only the play count changed (keep the answer and `upload` it after signing in).
        case anonymous
    }

    /// Counts a play of `quizId` (`plays` + 1, an `increment`) and, for a signed-in player, records `pick` as
    /// their answer and adds it to their totals unless they answered this quiz before.
    public func record(quizId: String, pick: Int, at date: Date = Date()) async throws -> Recorded {
        try await kura.collection("quizzes").document(quizId).updateData(["plays": FieldValue.increment(1)])
        guard let user = kura.auth.currentUser else { return .anonymous }
        let answer = kura.collection("quizScores").document(user.uid).collection("answers").document(quizId)
        if try await answer.getDocument().exists { return .replay }
        do {
            try await commit(uid: user.uid, name: Self.playerName(user), answers: [(quizId, pick, date)])
            return .counted
        } catch let error as KuraError where error.code == .permissionDenied {
            // The rules let an answer be created once: another client answered first.
            return .replay
        }
    }

    /// After a sign-in: adds answers played while signed out (oldest first) to the player's score, skipping quizzes
    /// the account answered already. Returns how many counted.
    public func upload(_ answers: [(quiz: String, pick: Int, at: Date)]) async throws -> Int {
        guard let user = kura.auth.currentUser else { throw KuraError(.notSignedIn, "sign in to keep these answers") }
        var fresh: [(quiz: String, pick: Int, at: Date)] = []
        for answer in answers where !fresh.contains(where: { $0.quiz == answer.quiz }) {
            let document = kura.collection("quizScores").document(user.uid).collection("answers")
                .document(answer.quiz)
            if try await !document.getDocument().exists { fresh.append(answer) }
        }
        var start = 0
        while start < fresh.count {
            let chunk = Array(fresh[start..<min(start + 50, fresh.count)])
            try await commit(uid: user.uid, name: Self.playerName(user), answers: chunk)
            start += 50
        }
        return fresh.count
    }

    /// The player's totals; zero when they have none.
    public func totals(uid: String) async throws -> QuizRules.Totals {
        let fields = try await kura.collection("quizScores").document(uid).getDocument().fields
        return QuizRules.Totals(played: fields?["played"]?.intValue ?? 0, correct: fields?["correct"]?.intValue ?? 0)
    }

    /// One row of the leaderboard.
    public struct Standing: Sendable, Equatable {
        public var position: Int
        public var uid: String
        public var name: String
        public var totals: QuizRules.Totals
    }

    /// The best `count` players by quizzes answered correctly (fewer answered first on a tie); tied players share
    /// a position.
    public func leaderboard(count: Int = 20) async throws -> [Standing] {
        let snapshot = try await kura.collection("quizScores").order(by: "correct", descending: true)
            .limit(to: count).getDocuments()
        let rows = snapshot.documents.map { document in
            (
                uid: document.documentID, name: document.fields["name"]?.stringValue ?? "",
                totals: QuizRules.Totals(
                    played: document.fields["played"]?.intValue ?? 0,
                    correct: document.fields["correct"]?.intValue ?? 0)
            )
        }.sorted {
            ($0.totals.correct, -$0.totals.played, $1.name) > ($1.totals.correct, -$1.totals.played, $0.name)
        }
        var standings: [Standing] = []
        for (index, row) in rows.enumerated() {
            let tied = standings.last.map { $0.totals == row.totals } ?? false
            let position = tied ? standings[standings.count - 1].position : index + 1
            standings.append(Standing(position: position, uid: row.uid, name: row.name, totals: row.totals))
        }
        return standings
    }

    /// The answers and the totals' increments in one commit: all or nothing.
    private func commit(uid: String, name: String, answers: [(quiz: String, pick: Int, at: Date)]) async throws {
        let totals = QuizRules.tally(answers.map { ($0.quiz, $0.pick) })
        let batch = kura.batch()
        let scores = kura.collection("quizScores").document(uid)
        for answer in answers {
            batch.setData(
                [
                    "pick": .integer(Int64(answer.pick)), "correct": .bool(QuizRules.isCorrect(answer.pick)),
                    "at": KuraValue(answer.at),
                ], forDocument: scores.collection("answers").document(answer.quiz))
        }
        batch.setData(
            [
                "name": .string(name), "played": FieldValue.increment(totals.played),
                "correct": FieldValue.increment(totals.correct), "updatedAt": KuraValue(Date()),
            ], forDocument: scores, merge: true)
        try await batch.commit()
    }

    /// The name the leaderboard shows: the display name, else the address before `@`.
    static func playerName(_ user: User) -> String {
        let name = user.displayName ?? user.email.map { String($0.prefix { $0 != "@" }) } ?? "player"
        return String((name.isEmpty ? "player" : name).prefix(40))
    }
}
