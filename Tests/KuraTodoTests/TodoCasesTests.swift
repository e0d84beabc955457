import Foundation
import KuraTodo
import Testing

/// apps/todo/cases.json: the cases the web app's logic.js runs too (Tests/Browser/suite_todo.py).
@Suite struct TodoCasesTests {
    static func list(_ key: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: todoApp.appendingPathComponent("cases.json"))
        let cases = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        return cases[key] as! [[String: Any]]
    }

    @Test func titles() throws {
        let cases = try Self.list("titles")
        #expect(cases.count >= 8)
        for item in cases {
            let input = String(repeating: item["input"] as! String, count: item["repeat"] as? Int ?? 1)
            let result = TodoTitle.clean(input)
            if let error = item["error"] as? String {
                #expect(result == .failure(TodoTitle.Problem(rawValue: error)!), "\(input.prefix(20))")
            } else {
                let title = String(repeating: item["title"] as! String, count: item["titleRepeat"] as? Int ?? 1)
                #expect(result == .success(title), "\(input.prefix(20))")
            }
        }
    }

    @Test func counts() throws {
        for item in try Self.list("counts") {
            let items = (item["done"] as! [Bool]).map { TodoItem(title: "x", done: $0) }
            let counts = TodoTitle.counts(items)
            #expect(counts.open == item["open"] as! Int && counts.done == item["doneCount"] as! Int)
        }
    }
}
