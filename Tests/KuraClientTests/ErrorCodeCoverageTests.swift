import Foundation
import KuraModel
import Testing

@testable import KuraClient

/// Every code the server can answer with (the model's `ErrorCode.documented`, docs/api.md's table, plus `OVERFLOW`,
/// a listen stream's last event, plus any other constant declared in `ErrorCode`) is known to both SDKs, so an app's
/// retry logic keyed on `.aborted` or `'resource-exhausted'` fires instead of meeting `.unknown`.
@Suite struct ErrorCodeCoverageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The wire spellings of the constants declared in Sources/KuraModel/ErrorCode.swift
    /// (`public static let … = ErrorCode(rawValue: "…")`), the one list of server codes, read from the source so
    /// that a new constant counts even when no list of codes names it yet.
    static func declaredCodes() throws -> [ErrorCode] {
        let source = try String(
            contentsOf: root.appendingPathComponent("Sources/KuraModel/ErrorCode.swift"), encoding: .utf8)
        let marker = "= ErrorCode(rawValue: \""
        return source.split(separator: "\n").compactMap { line in
            guard line.contains("static let"), let start = line.range(of: marker),
                let end = line[start.upperBound...].firstIndex(of: "\"")
            else { return nil }
            return ErrorCode(rawValue: String(line[start.upperBound..<end]))
        }
    }

    static func serverCodes() throws -> [ErrorCode] {
        var codes = ErrorCode.documented + [.overflow]
        for code in try declaredCodes() where !codes.contains(code) { codes.append(code) }
        return codes
    }

    @Test func theDeclaredCodesAreRead() throws {
        let declared = try Self.declaredCodes()
        #expect(declared.count > 40)
        #expect(Set(declared).isSuperset(of: ErrorCode.documented + [.overflow]))
    }

    @Test func everyServerCodeIsASwiftCode() throws {
        let unknown = try Self.serverCodes().filter {
            if case .unknown = KuraError.Code(rawValue: $0.rawValue) { return true }
            return false
        }
        #expect(unknown.isEmpty, "codes the Swift SDK does not know: \(unknown)")
        for code in try Self.serverCodes() {
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
        let source = try String(contentsOf: Self.root.appendingPathComponent("web/sdk/errors.js"), encoding: .utf8)
        let start = try #require(source.range(of: "const DATA_CODES = {"))
        let end = try #require(source[start.upperBound...].range(of: "};"))
        let keys = Set(
            source[start.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line -> String? in
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard let colon = trimmed.firstIndex(of: ":"), !trimmed.hasPrefix("//") else { return nil }
                return String(trimmed[..<colon])
            })
        let missing = try Self.serverCodes().map(\.rawValue).filter { !keys.contains($0) }
        #expect(missing.isEmpty, "codes kura.js's DATA_CODES does not map: \(missing)")
    }
}
