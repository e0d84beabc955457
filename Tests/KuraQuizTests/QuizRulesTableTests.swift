import Foundation
import KuraServer
import Testing

/// apps/quiz/quiz.rules against its table (apps/quiz/quiz.rules-tests.json), as `kura rules test` runs it.
@Suite struct QuizRulesTableTests {
    @Test func theRulesPassTheirTable() throws {
        let table = quizApp.appendingPathComponent("quiz.rules-tests.json").path
        let (report, passed) = try RulesTool.test(tablePath: table, rulesPath: nil)
        #expect(passed, "\(report)")
        #expect(report.contains("37 passed, 0 failed"), "\(report)")
    }
}
