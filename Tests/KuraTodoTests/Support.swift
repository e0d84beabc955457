import Foundation
import KuraClient
import KuraServerTestSupport

/// apps/todo in this checkout.
let todoApp = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("apps/todo")

/// The to-do section (apps/todo/todo.rules) after the seed apps' common section, as apps/rules.sh writes them.
func todoRules() throws -> String {
    let apps = todoApp.deletingLastPathComponent()
    let common = try String(contentsOf: apps.appendingPathComponent("common.rules"), encoding: .utf8)
    let section = try String(contentsOf: todoApp.appendingPathComponent("todo.rules"), encoding: .utf8)
    return "rules_version = '1';\n\(common)\n\(section)"
}

/// Runs `body` against a fresh server with the seed apps' rules for the to-do list.
func withTodoServer<T>(_ body: (TestKura) async throws -> T) async throws -> T {
    try await withTestKura(rules: try todoRules(), configure: { $0.useSDKTestSettings() }, body)
}

/// A client of `server` with nothing persisted.
func client(_ server: TestKura) -> Kura { Kura(url: server.url, settings: .init(session: .memory)) }

/// A new address per test.
func uniqueEmail(_ name: String = "todo") -> String {
    "\(name)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
}
