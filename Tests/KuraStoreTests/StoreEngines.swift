import Foundation
import KuraCore
import KuraStore
import KuraTestSupport
import Testing

/// A store under test plus whatever it needs cleaned up afterwards.
final class StoreHarness: @unchecked Sendable {
    let store: any DocumentStore
    private let cleanup: @Sendable () -> Void

    init(store: any DocumentStore, cleanup: @escaping @Sendable () -> Void) {
        self.store = store
        self.cleanup = cleanup
    }

    deinit { cleanup() }
}

/// One `DocumentStore` engine the conformance suite runs against. Add PostgreSQL here and every conformance test
/// runs on it too.
struct StoreEngine: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable () throws -> StoreHarness
    var testDescription: String { name }

    static let sqlite = StoreEngine(name: "SQLite") {
        let directory = try TemporaryDirectory("store")
        let store = try SQLiteDocumentStore(path: directory.path + "/kura.db")
        return StoreHarness(store: store) {
            store.close()
            directory.remove()
        }
    }

    /// Every engine the conformance suite covers.
    static let all: [StoreEngine] = [.sqlite]
}

/// Helpers shared by the conformance tests.
func doc(_ path: String) throws -> DocumentPath { try DocumentPath(path) }
func col(_ path: String) throws -> CollectionPath { try CollectionPath(path) }
func field(_ path: String) throws -> FieldPath { try FieldPath(path) }
func object(_ value: JSONValue) -> JSONObject { value.objectValue ?? JSONObject() }

/// Expects `body` to throw a `KuraError` with `code` (and `status` when given).
func expectError(
    _ code: String, status: Int? = nil, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        try body()
        Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as KuraError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        if let status { #expect(error.status == status, sourceLocation: sourceLocation) }
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}
