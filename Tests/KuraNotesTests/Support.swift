import Foundation
import KuraClient
import KuraNotes
import KuraServer
import KuraServerTestSupport
import KuraTestSupport

/// apps/notes in this checkout.
let notesApp = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("apps/notes")

/// The common section and the notes section (apps/rules.sh notes), as one rules file.
func notesRules() throws -> String {
    let apps = notesApp.deletingLastPathComponent()
    let common = try String(contentsOf: apps.appendingPathComponent("common.rules"), encoding: .utf8)
    let section = try String(contentsOf: notesApp.appendingPathComponent("notes.rules"), encoding: .utf8)
    return "rules_version = '1';\n\(common)\n\(section)"
}

/// Runs `body` against a fresh server with the notes rules, and removes it afterwards.
func withNotesServer<T>(_ body: (TestKura) async throws -> T) async throws -> T {
    try await withTestKura(rules: try notesRules(), configure: { $0.useSDKTestSettings() }, body)
}

/// A client of `server` with nothing persisted.
func client(_ server: TestKura) -> Kura { Kura(url: server.url, settings: .init(session: .memory)) }

/// A new address per test.
func uniqueEmail(_ name: String = "reader") -> String {
    "\(name)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
}

/// Confirms the verification link mailed to `address`, as a person submitting the action page's form.
func followVerificationLink(_ server: TestKura, to address: String) async throws {
    try await offPool {
        let link = try server.heldLink(to: address, mode: "verifyEmail")
        let page = try server.open(link)
        guard page.status == 200 else { throw TestFailure("the action page answered \(page.status)") }
        let confirmed = try server.submitActionForm([("mode", "verifyEmail"), ("code", queryItem(link, "code") ?? "")])
        guard confirmed.status == 200 else { throw TestFailure("confirming answered \(confirmed.status)") }
    }
}

/// A signed-up client whose address is verified (through the mailed link), with a fresh ID token.
func verifiedClient(_ server: TestKura, email: String = uniqueEmail()) async throws -> Kura {
    let kura = client(server)
    try await kura.auth.createUser(withEmail: email, password: "secret-pw")
    try await followVerificationLink(server, to: email)
    let user = try await kura.auth.currentUser!.reload()
    _ = try await user.getIDToken(forcingRefresh: true)
    return kura
}
