import Foundation
import KuraAuth
import KuraClient
import KuraCore
import KuraHTTP
import KuraModel
import KuraRealtime
import KuraServer
import KuraStore
import Testing

/// An app (or test) that imports the SDK and every server module sees no top-level name twice: the SDK's
/// Firebase-shaped names (`Kura`, `KuraError`, `Query`, `Timestamp`…) are written unqualified here, and this file
/// only compiles while no server module declares them too (issue 13; the server's are `KuraNode`, `APIError`,
/// `StructuredQuery`, `RFC3339`/`WallClock`). The other half of the rule, that `import KuraClient` alone shows no
/// model name (`JSONValue`…), is checked by sdk/swift/check.sh.
@Suite struct NameClashTests {
    @Test func theSDKsNamesNeedNoModulePrefixBesideTheServer() throws {
        let kura: Kura = Kura(url: URL(string: "http://127.0.0.1:1")!, settings: .init(session: .memory))
        let query: Query = kura.collection("todos").whereField("done", isEqualTo: false)
        let error: KuraError = KuraError(.permissionDenied, "no")
        let time: Timestamp = Timestamp(seconds: 1, nanoseconds: 0)
        let code: ActionCodeInfo.Type = ActionCodeInfo.self
        #expect(query.description.contains("todos"))
        #expect(error.code == .permissionDenied)
        #expect(time.seconds == 1)
        #expect(code == ActionCodeInfo.self)
        // The server's renamed types, beside them.
        #expect(KuraNode.version.isEmpty == false)
        #expect(APIError.notFound("x").status == 404)
        #expect(AutoID.automatic().utf8.count == 20)
    }
}
