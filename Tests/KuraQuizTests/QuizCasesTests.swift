import Foundation
import KuraClient
import KuraQuiz
import Testing

/// apps/quiz/cases.json: the cases the web app's logic.js runs too (Tests/Browser/suite_quiz.py).
@Suite struct QuizCasesTests {
    static func list(_ key: String) -> [[String: Any]] {
        let data = try! Data(contentsOf: quizApp.appendingPathComponent("cases.json"))
        let cases = try! JSONSerialization.jsonObject(with: data) as! [String: Any]
        return cases[key] as! [[String: Any]]
    }

    @Test func choiceOrders() {
        let cases = Self.list("choiceOrders")
        #expect(cases.count >= 5)
        for item in cases {
            let seed = UInt32((item["seed"] as! NSNumber).uint64Value)
            #expect(QuizRules.choiceOrder(seed: seed) == item["order"] as! [Int], "seed \(seed)")
        }
    }

    @Test func everyOrderIsAPermutationOfRanksFiveToEight() {
        var seen = Set<[Int]>()
        for seed in UInt32(1)...2000 {
            let order = QuizRules.choiceOrder(seed: seed)
            #expect(order.sorted() == [5, 6, 7, 8])
            seen.insert(order)
        }
        #expect(seen.count == 24, "every one of the 24 orders shows up")
    }

    @Test func answers() {
        for item in Self.list("answers") {
            let pick = item["pick"] as! Int
            #expect(QuizRules.isCorrect(pick) == item["correct"] as! Bool)
            #expect(QuizRules.points(pick) == item["points"] as! Int)
        }
    }

    @Test func tallies() {
        for item in Self.list("tallies") {
            let answers = (item["answers"] as! [[Any]]).map { ($0[0] as! String, $0[1] as! Int) }
            let expect = item["expect"] as! [String: Int]
            #expect(
                QuizRules.tally(answers) == .init(played: expect["played"]!, correct: expect["correct"]!),
                "\(item["name"]!)")
        }
    }

    @Test func numbers() {
        for item in Self.list("numbers") {
            let value = (item["value"] as! NSNumber).doubleValue
            #expect(QuizRules.formatNumber(value) == item["text"] as! String)
        }
    }

    @Test func seedRows() throws {
        for item in Self.list("seedRows") {
            let fields = try DocumentData(bridging: item["quiz"] as! [String: Any])
            let quiz = try #require(Quiz(id: item["id"] as! String, fields: fields))
            #expect(quiz.seedRow == item["row"] as! [String: String])
        }
    }

    @Test func theShippedQuizzesAreValidWithSourcesAndYears() throws {
        let quizzes = try shippedQuizzes()
        #expect(quizzes.count >= 12)
        #expect(Set(quizzes.map(\.id)).count == quizzes.count)
        for quiz in quizzes {
            #expect(quiz.problems.isEmpty, "\(quiz.id): \(quiz.problems)")
            #expect(quiz.memo.contains("出典"), "\(quiz.id) names its source")
            let namesYear = quiz.memo.contains { $0.isNumber }
            #expect(namesYear, "\(quiz.id) names its year")
            #expect(Int(quiz.id) != nil, "\(quiz.id): the seed's IDs are numbers")
            let values = quiz.entries.map(\.value)
            let ranked = quiz.entries.map(\.rank)
            #expect(ranked == Array(1...10))
            // Ranks 5–8 must be told apart: no tie among the choices.
            #expect(Set(values[4...7]).count == 4, "\(quiz.id): ranks 5–8 are distinct")
            // Ascending lists ("smallest first") or descending ones, never unordered.
            #expect(values == values.sorted(by: >) || values == values.sorted(), "\(quiz.id) is in rank order")
        }
    }
}
