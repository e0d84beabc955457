import Foundation
import KuraModel
import Testing

/// `ErrorCode`'s constants are the wire codes docs/api.md documents, spelled exactly as there.
@Suite struct ErrorCodeTests {
    /// The codes in the "Error codes" table of docs/api.md.
    static func documentedCodes() throws -> Set<String> {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/api.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        guard let start = text.range(of: "## Error codes") else { throw CocoaError(.fileReadCorruptFile) }
        var codes = Set<String>()
        for line in text[start.upperBound...].split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
            guard line.hasPrefix("| "), cells.count > 2 else { continue }
            for part in cells[2].split(separator: "`") where part.allSatisfy({ $0.isUppercase || $0 == "_" }) {
                if part.count > 2 { codes.insert(String(part)) }
            }
        }
        return codes
    }

    @Test func everyDocumentedCodeHasAConstantAndNoOtherCodeDoes() throws {
        let documented = try Self.documentedCodes()
        #expect(documented.count > 30)
        #expect(Set(ErrorCode.documented.map(\.rawValue)) == documented)
        #expect(Set(ErrorCode.documented).count == ErrorCode.documented.count)
    }

    @Test func constantsAreSpelledAsOnTheWire() {
        #expect(ErrorCode.permissionDenied.rawValue == "PERMISSION_DENIED")
        #expect(ErrorCode.invalidOOBCode.rawValue == "INVALID_OOB_CODE")
        #expect(ErrorCode.internal.description == "INTERNAL")
        #expect(ErrorCode(rawValue: "FAILED_PRECONDITION") == .failedPrecondition)
        // A code from a newer server survives as itself.
        #expect(ErrorCode(rawValue: "SOMETHING_NEW").rawValue == "SOMETHING_NEW")
    }

    @Test func validationErrorsCarryTheirCodes() {
        #expect(throws: ValidationError.invalidPath("IDs must not contain '/'")) {
            try ResourcePath.validateID("a/b")
        }
        #expect(throws: ValidationError.self) { try FieldPath("a..b") }
        do {
            _ = try JSONValue.parse("[1,")
            Issue.record("accepted")
        } catch let error as ValidationError {
            #expect(error.code == .invalidArgument)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
