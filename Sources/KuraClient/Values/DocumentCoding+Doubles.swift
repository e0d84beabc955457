import Foundation
internal import KuraModel

/// `JSONEncoder` writes a `Double` or `Float` with an integral value as `2`, not `2.0`, so the document data made
/// from it would hold the integer 2: a value of another type than the Swift property. `DoublePaths` walks the same
/// `Encodable` value and records where doubles were encoded; `restoringDoubles` turns the integers found there back
/// into doubles.
enum DoublePaths {
    /// One step into a document: a map key or an array index.
    enum Step: Hashable {
        case key(String)
        case index(Int)
    }

    /// The paths at which `value` encodes a `Double` or `Float`.
    static func of<T: Encodable>(_ value: T) throws -> Set<[Step]> {
        let recorder = Recorder()
        try value.encode(to: RecordingEncoder(recorder: recorder, path: []))
        return recorder.paths
    }

    /// `value` with every integer at one of `paths` made a double again.
    static func restoringDoubles(in value: KuraValue, at paths: Set<[Step]>) -> KuraValue {
        guard !paths.isEmpty else { return value }
        return restore(value, path: [], paths: paths)
    }

    private static func restore(_ value: KuraValue, path: [Step], paths: Set<[Step]>) -> KuraValue {
        switch value {
        case .integer(let integer) where paths.contains(path): return .double(Double(integer))
        case .array(let elements):
            return .array(elements.enumerated().map { restore($1, path: path + [.index($0)], paths: paths) })
        case .map(let members):
            return .map(
                members.reduce(into: [:]) { $0[$1.key] = restore($1.value, path: path + [.key($1.key)], paths: paths) })
        default: return value
        }
    }

    final class Recorder {
        var paths: Set<[Step]> = []
    }

    /// An `Encoder` that produces nothing but the paths of doubles. It follows the shape `JSONEncoder` gives a value;
    /// where `JSONEncoder` writes a special type as a string (`Date`, `Data`, `URL`), the paths recorded inside it
    /// lead to no integer and change nothing.
    struct RecordingEncoder: Encoder {
        let recorder: Recorder
        let path: [Step]
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Keyed<Key>(recorder: recorder, path: path))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { Unkeyed(recorder: recorder, path: path) }
        func singleValueContainer() -> any SingleValueEncodingContainer { Single(recorder: recorder, path: path) }
    }

    private static func record<T: Encodable>(_ value: T, _ recorder: Recorder, _ path: [Step]) throws {
        if value is Double || value is Float {
            recorder.paths.insert(path)
        } else {
            try value.encode(to: RecordingEncoder(recorder: recorder, path: path))
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let recorder: Recorder
        let path: [Step]
        var codingPath: [any CodingKey] { [] }

        func encodeNil(forKey key: Key) throws {}
        func encode(_ value: Bool, forKey key: Key) throws {}
        func encode(_ value: String, forKey key: Key) throws {}
        func encode(_ value: Int, forKey key: Key) throws {}
        func encode(_ value: Int8, forKey key: Key) throws {}
        func encode(_ value: Int16, forKey key: Key) throws {}
        func encode(_ value: Int32, forKey key: Key) throws {}
        func encode(_ value: Int64, forKey key: Key) throws {}
        func encode(_ value: UInt, forKey key: Key) throws {}
        func encode(_ value: UInt8, forKey key: Key) throws {}
        func encode(_ value: UInt16, forKey key: Key) throws {}
        func encode(_ value: UInt32, forKey key: Key) throws {}
        func encode(_ value: UInt64, forKey key: Key) throws {}
        func encode(_ value: Double, forKey key: Key) throws { recorder.paths.insert(path + [.key(key.stringValue)]) }
        func encode(_ value: Float, forKey key: Key) throws { recorder.paths.insert(path + [.key(key.stringValue)]) }
        func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try record(value, recorder, path + [.key(key.stringValue)])
        }
        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            KeyedEncodingContainer(Keyed<NestedKey>(recorder: recorder, path: path + [.key(key.stringValue)]))
        }
        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            Unkeyed(recorder: recorder, path: path + [.key(key.stringValue)])
        }
        func superEncoder() -> any Encoder { RecordingEncoder(recorder: recorder, path: path + [.key("super")]) }
        func superEncoder(forKey key: Key) -> any Encoder {
            RecordingEncoder(recorder: recorder, path: path + [.key(key.stringValue)])
        }
    }

    final class Unkeyed: UnkeyedEncodingContainer {
        let recorder: Recorder
        let path: [Step]
        private(set) var count = 0
        var codingPath: [any CodingKey] { [] }

        init(recorder: Recorder, path: [Step]) {
            self.recorder = recorder
            self.path = path
        }

        private func next() -> [Step] {
            defer { count += 1 }
            return path + [.index(count)]
        }

        func encodeNil() throws { _ = next() }
        func encode(_ value: Bool) throws { _ = next() }
        func encode(_ value: String) throws { _ = next() }
        func encode(_ value: Int) throws { _ = next() }
        func encode(_ value: Int8) throws { _ = next() }
        func encode(_ value: Int16) throws { _ = next() }
        func encode(_ value: Int32) throws { _ = next() }
        func encode(_ value: Int64) throws { _ = next() }
        func encode(_ value: UInt) throws { _ = next() }
        func encode(_ value: UInt8) throws { _ = next() }
        func encode(_ value: UInt16) throws { _ = next() }
        func encode(_ value: UInt32) throws { _ = next() }
        func encode(_ value: UInt64) throws { _ = next() }
        func encode(_ value: Double) throws { recorder.paths.insert(next()) }
        func encode(_ value: Float) throws { recorder.paths.insert(next()) }
        func encode<T: Encodable>(_ value: T) throws { try record(value, recorder, next()) }
        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey>
        {
            KeyedEncodingContainer(Keyed<NestedKey>(recorder: recorder, path: next()))
        }
        func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { Unkeyed(recorder: recorder, path: next()) }
        func superEncoder() -> any Encoder { RecordingEncoder(recorder: recorder, path: next()) }
    }

    struct Single: SingleValueEncodingContainer {
        let recorder: Recorder
        let path: [Step]
        var codingPath: [any CodingKey] { [] }

        func encodeNil() throws {}
        func encode(_ value: Bool) throws {}
        func encode(_ value: String) throws {}
        func encode(_ value: Int) throws {}
        func encode(_ value: Int8) throws {}
        func encode(_ value: Int16) throws {}
        func encode(_ value: Int32) throws {}
        func encode(_ value: Int64) throws {}
        func encode(_ value: UInt) throws {}
        func encode(_ value: UInt8) throws {}
        func encode(_ value: UInt16) throws {}
        func encode(_ value: UInt32) throws {}
        func encode(_ value: UInt64) throws {}
        func encode(_ value: Double) throws { recorder.paths.insert(path) }
        func encode(_ value: Float) throws { recorder.paths.insert(path) }
        func encode<T: Encodable>(_ value: T) throws { try record(value, recorder, path) }
    }
}
