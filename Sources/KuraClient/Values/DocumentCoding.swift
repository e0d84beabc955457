import Foundation
internal import KuraModel

/// `Codable` ⇄ document data: through JSON, with dates as the RFC 3339 strings the server uses for its own times
/// (so a `Date` field can hold a `FieldValue.serverTimestamp()`).
enum DocumentCoding {
    static let documentIDKey = CodingUserInfoKey(rawValue: "KuraClient.documentID")!

    static func encodeValue<T: Encodable>(_ value: T) throws -> KuraValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.string(from: date))
        }
        let decoded = try JSONText.decode(try encoder.encode(value))
        // JSONEncoder writes 2.0 as 2: put back the doubles it made look like integers.
        return ServerTimestamp.resolve(DoublePaths.restoringDoubles(in: decoded, at: try DoublePaths.of(value)))
    }

    static func encode<T: Encodable>(_ value: T) throws -> DocumentData {
        guard case .map(let data) = try encodeValue(value) else {
            throw KuraError.invalidArgument("\(T.self) does not encode to a keyed container (a document's fields)")
        }
        return data
    }

    static func decode<T: Decodable>(_ type: T.Type, from data: DocumentData, documentID: String?) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self), let date = RFC3339.date(from: text) { return date }
            if let seconds = try? container.decode(Double.self) { return Date(timeIntervalSince1970: seconds) }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected an RFC 3339 time")
        }
        if let documentID { decoder.userInfo[documentIDKey] = documentID }
        return try decoder.decode(type, from: try JSONText.encode(.map(data)))
    }
}

/// A property filled with the document's ID when decoding, and left out when encoding (as Firestore's
/// `@DocumentID`): `@DocumentID var id: String?`.
@propertyWrapper
public struct DocumentID: Codable, Sendable, Hashable {
    public var wrappedValue: String?

    public init(wrappedValue: String?) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        wrappedValue = decoder.userInfo[DocumentCoding.documentIDKey] as? String
    }

    /// Never called by synthesized `Codable` (the container extension below leaves the key out).
    public func encode(to encoder: any Encoder) throws {}
}

/// A `Date?` that a write fills with the server's commit time when it is `nil` (as Firestore's
/// `@ServerTimestamp`): `@ServerTimestamp var createdAt: Date?`.
@propertyWrapper
public struct ServerTimestamp: Codable, Sendable, Hashable {
    public var wrappedValue: Date?

    public init(wrappedValue: Date?) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Date.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encode(Self.marker) }
    }

    /// Stands for "the server's time" in the encoded JSON until `resolve` turns it into the sentinel.
    static let marker = "\u{0}KuraClient.serverTimestamp\u{0}"

    static func resolve(_ value: KuraValue) -> KuraValue {
        switch value {
        case .string(marker): return FieldValue.serverTimestamp()
        case .map(let members): return .map(members.mapValues(resolve))
        case .array(let elements): return .array(elements.map(resolve))
        default: return value
        }
    }
}

extension KeyedDecodingContainer {
    /// `@DocumentID`: the ID comes from the decoder, not from the data (the key need not be there).
    public func decode(_ type: DocumentID.Type, forKey key: Key) throws -> DocumentID {
        try DocumentID(from: try superDecoder(forKey: key))
    }

    /// `@ServerTimestamp`: a missing field is `nil`.
    public func decode(_ type: ServerTimestamp.Type, forKey key: Key) throws -> ServerTimestamp {
        guard contains(key), !(try decodeNil(forKey: key)) else { return ServerTimestamp(wrappedValue: nil) }
        return ServerTimestamp(wrappedValue: try decode(Date.self, forKey: key))
    }
}

extension KeyedEncodingContainer {
    /// `@DocumentID` is not stored in the document.
    public mutating func encode(_ value: DocumentID, forKey key: Key) throws {}
}
