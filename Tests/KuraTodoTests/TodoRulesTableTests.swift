import Foundation
import KuraServer
import Testing

/// apps/todo/todo.rules against its table (apps/todo/todo.rules-tests.json), as `kura rules test` runs it.
@Suite struct TodoRulesTableTests {
    @Test func theRulesPassTheirTable() throws {
        let table = todoApp.appendingPathComponent("todo.rules-tests.json").path
        let (report, passed) = try RulesTool.test(tablePath: table, rulesPath: nil)
        #expect(passed, "\(report)")
        #expect(report.contains("17 passed, 0 failed"), "\(report)")
    }
}
