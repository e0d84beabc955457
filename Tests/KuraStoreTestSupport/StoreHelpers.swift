import Foundation
import KuraCore
import KuraModel
import KuraStore
import KuraTestSupport
import Testing

// Helpers of the document-store tests, shared by every engine's test target (KuraStoreTests, KuraSQLiteEngineTests,
// KuraPostgresEngineTests).

/// Helpers shared by the conformance tests.
public func doc(_ path: String) throws -> DocumentPath { try DocumentPath(path) }
public func col(_ path: String) throws -> CollectionPath { try CollectionPath(path) }
public func field(_ path: String) throws -> FieldPath { try FieldPath(path) }
public func object(_ value: JSONValue) -> JSONObject { value.objectValue ?? JSONObject() }

/// Expects `body` to throw an `APIError` with `code` (and `status` when given).
public func expectError(
    _ code: ErrorCode, status: Int? = nil, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        try body()
        Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
    } catch {
        guard let error = APIError(answering: error) else {
            Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        if let status { #expect(error.status == status, sourceLocation: sourceLocation) }
    }
}
