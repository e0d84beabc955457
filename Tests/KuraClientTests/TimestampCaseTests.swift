import Foundation
import Testing

@testable import KuraClient

/// Tests/Cases/timestamps.json: which stored strings read back as `Timestamp`, and what a `Timestamp` or a `Date`
/// writes. kura.js runs the same cases (Tests/Browser/suite_names.py).
@Suite struct TimestampCaseTests {
    struct Time: Decodable, Sendable {
        var seconds: Int64
        var nanoseconds: Int32
    }

    struct Read: Decodable, CustomStringConvertible, Sendable {
        var text: String
        var timestamp: Time?
        var description: String { "read \(text.debugDescription)" }
    }

    struct WriteCase: Decodable, CustomStringConvertible, Sendable {
        var timestamp: Time?
        var millis: Int64?
        var text: String
        var description: String { "write \(text)" }
    }

    struct File: Decodable {
        var reads: [Read]
        var writes: [WriteCase]
    }

    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Cases/timestamps.json")

    static func load() throws -> File {
        try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
    }

    @Test(arguments: try load().reads)
    func read(_ test: Read) {
        let value = KuraValue.string(test.text)
        let read = value.timestampValue
        #expect(read?.seconds == test.timestamp?.seconds)
        #expect(read?.nanoseconds == test.timestamp?.nanoseconds)
        // What `data()` gives a Firebase-style app: a Timestamp for a time, else the string itself.
        if test.timestamp == nil {
            #expect(value.bridged as? String == test.text)
        } else {
            #expect(value.bridged as? Timestamp == read)
        }
    }

    @Test(arguments: try load().writes)
    func write(_ test: WriteCase) throws {
        if let time = test.timestamp {
            #expect(KuraValue(Timestamp(seconds: time.seconds, nanoseconds: time.nanoseconds)) == .string(test.text))
        } else {
            let millis = try #require(test.millis)
            #expect(KuraValue(Date(timeIntervalSince1970: Double(millis) / 1000)) == .string(test.text))
        }
    }
}
