import Foundation
import KuraServer
import Testing

/// apps/notes/notes.rules against its table (apps/notes/notes.rules-tests.json), as `kura rules test` runs it.
@Suite struct NotesRulesTableTests {
    @Test func theRulesPassTheirTable() throws {
        let table = notesApp.appendingPathComponent("notes.rules-tests.json").path
        let (report, passed) = try RulesTool.test(tablePath: table, rulesPath: nil)
        #expect(passed, "\(report)")
        #expect(report.contains("28 passed, 0 failed"), "\(report)")
    }
}
