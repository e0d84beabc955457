/// The rules of "7位を当てろ！" that the web app (apps/quiz/web/logic.js) follows too; apps/quiz/cases.json holds the
/// cases both run, so the two cannot drift.
public enum QuizRules {
    /// The ranks offered as choices.
    public static let choiceRanks = [5, 6, 7, 8]
    /// The rank to guess.
    public static let answerRank = 7

    /// One step of xorshift32, the generator the web app uses too (same UInt32 arithmetic).
    public static func nextRandom(_ state: UInt32) -> UInt32 {
        var x = state
        x ^= x << 13
        x ^= x >> 17
        x ^= x << 5
        return x
    }

    /// The ranks 5–8 in the order a play with `seed` shows them: Fisher–Yates driven by xorshift32 (seed 0 is 1).
    public static func choiceOrder(seed: UInt32) -> [Int] {
        var order = choiceRanks
        var state = seed == 0 ? 1 : seed
        for i in stride(from: order.count - 1, to: 0, by: -1) {
            state = nextRandom(state)
            let j = Int(state % UInt32(i + 1))
            order.swapAt(i, j)
        }
        return order
    }

    /// Whether picking `rank` answers the quiz.
    public static func isCorrect(_ rank: Int) -> Bool { rank == answerRank }

    /// Points for one answer: 1 for the 7th place, 0 otherwise.
    public static func points(_ rank: Int) -> Int { isCorrect(rank) ? 1 : 0 }

    /// A player's totals from answers in the order given: the first answer to each quiz counts, replays do not.
    public static func tally(_ answers: [(quiz: String, pick: Int)]) -> Totals {
        var seen = Set<String>()
        var totals = Totals(played: 0, correct: 0)
        for answer in answers where seen.insert(answer.quiz).inserted {
            totals.played += 1
            totals.correct += points(answer.pick)
        }
        return totals
    }

    /// Quizzes answered and answered correctly.
    public struct Totals: Sendable, Equatable, Codable {
        public var played: Int
        public var correct: Int

        public init(played: Int, correct: Int) {
            self.played = played
            self.correct = correct
        }
    }

    /// `1234567.5` → `"1,234,567.5"`: the integer part grouped by threes, the fraction as the shortest decimal that
    /// reads back as the same double (what JavaScript's `String(number)` writes for these values).
    public static func formatNumber(_ value: Double) -> String {
        let text: String
        if value == value.rounded(), abs(value) < 1e15 {
            text = String(Int64(value))
        } else {
            text = "\(value)"
        }
        let parts = text.split(separator: ".", maxSplits: 1)
        var whole = String(parts[0])
        let negative = whole.hasPrefix("-")
        if negative { whole.removeFirst() }
        var grouped = ""
        for (index, character) in whole.enumerated() {
            if index > 0, (whole.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(character)
        }
        return (negative ? "-" : "") + grouped + (parts.count > 1 ? "." + parts[1] : "")
    }
}
