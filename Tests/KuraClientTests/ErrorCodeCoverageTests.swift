import Foundation
import KuraModel
import Testing

@testable import KuraClient

/// Every code the server can answer with (the model's `ErrorCode.documented`, docs/api.md's table, plus `OVERFLOW`,
/// a listen stream's last event) is known to both SDKs, so an app's retry logic keyed on `.aborted` or
/// `'resource-exhausted'` fires instead of meeting `.unknown`.
@Suite struct ErrorCodeCoverageTests {
    static let serverCodes = ErrorCode.documented + [.overflow]

    @Test func everyServerCodeIsASwiftCode() {
        let unknown = Self.serverCodes.filter {
            if case .unknown = KuraError.Code(rawValue: $0.rawValue) { return true }
            return false
        }
        #expect(unknown.isEmpty, "codes the Swift SDK does not know: \(unknown)")
        for code in Self.serverCodes {
            #expect(KuraError.Code(rawValue: code.rawValue).rawValue == code.rawValue)
        }
    }

    @Test func firestoreCodesOfTheContentionAndLimitAnswers() {
        #expect(KuraError(.init(rawValue: "ABORTED"), "").firestoreErrorCode == .aborted)
        #expect(KuraError(.init(rawValue: "RESOURCE_EXHAUSTED"), "").firestoreErrorCode == .resourceExhausted)
        #expect(KuraError(.init(rawValue: "NOT_IMPLEMENTED"), "").firestoreErrorCode == .unimplemented)
        #expect(KuraError(.init(rawValue: "INVALID_RULES"), "").firestoreErrorCode == .invalidArgument)
        #expect(KuraError(.init(rawValue: "ORIGIN_NOT_ALLOWED"), "").firestoreErrorCode == .permissionDenied)
    }

    /// kura.js maps server codes through the `DATA_CODES` table of web/sdk/errors.js.
    @Test func everyServerCodeIsInKuraJS() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let source = try String(contentsOf: root.appendingPathComponent("web/sdk/errors.js"), encoding: .utf8)
        let start = try #require(source.range(of: "const DATA_CODES = {"))
        let end = try #require(source[start.upperBound...].range(of: "};"))
        let keys = Set(
            source[start.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line -> String? in
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard let colon = trimmed.firstIndex(of: ":"), !trimmed.hasPrefix("//") else { return nil }
                return String(trimmed[..<colon])
            })
        let missing = Self.serverCodes.map(\.rawValue).filter { !keys.contains($0) }
        #expect(missing.isEmpty, "codes kura.js's DATA_CODES does not map: \(missing)")
    }
}
