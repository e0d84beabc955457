import Foundation
import KuraRules

/// `kura rules test TABLE [--rules FILE]`: runs a rules test table (docs/rules.md) against a rules file, the
/// table's own `"rules"` file (relative to the table), or the default rules.
public enum RulesTool {
    /// One line per case (`PASS name (allow)`, `FAIL name: expected allow, got deny (why)`), a summary line, and whether every case passed.
    public static func test(tablePath: String, rulesPath: String?) throws -> (report: String, passed: Bool) {
        let tableText = try String(contentsOfFile: tablePath, encoding: .utf8)
        let table = try RulesTestTable.decode(json: tableText)
        // A table named without a directory ("cases.json") lies in the current one: its rules file is "./x.rules",
        // not "/x.rules".
        let directory =
            (tablePath as NSString).deletingLastPathComponent.isEmpty
            ? "." : (tablePath as NSString).deletingLastPathComponent
        let path = rulesPath ?? table.rulesFile.map { ($0 as NSString).isAbsolutePath ? $0 : directory + "/" + $0 }
        let rules: RuleSet
        if let path {
            rules = try RuleSet.compile(
                source: try String(contentsOfFile: path, encoding: .utf8),
                fileName: (path as NSString).lastPathComponent)
        } else {
            rules = RuleSet.defaultRules
        }
        let results = table.run(rules)
        var lines = results.map(\.line)
        let failed = results.filter { !$0.passed }.count
        lines.append("\(results.count - failed) passed, \(failed) failed")
        return (lines.joined(separator: "\n"), failed == 0)
    }
}
