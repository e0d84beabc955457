import Foundation
internal import KuraModel

/// JSON bytes ⇄ `KuraValue` through the shared model's parser and serializer (KuraModel), so the SDK reads and writes
/// JSON exactly as the server does: integers kept apart from doubles (doubles are written with a `.` or an exponent),
/// integers past 64 bits and duplicate keys refused. Maps are written with sorted keys, so equal values give equal
/// bytes.
enum JSONText {
    /// How deeply arrays and maps may nest in what the SDK reads (the server's documents are shallower).
    static let maxDepth = 512

    static func encode(_ value: KuraValue) throws -> Data {
        var out: [UInt8] = []
        try storable(value).appendJSON(to: &out)
        return Data(out)
    }

    static func decode(_ data: Data) throws -> KuraValue {
        do {
            return try KuraValue(model: try JSONValue.parse(data, maxDepth: maxDepth))
        } catch let error as ValidationError {
            throw KuraError.invalidResponse("bad JSON: \(error.message)")
        }
    }

    /// The model value written for `value`; throws for what JSON cannot hold.
    static func storable(_ value: KuraValue) throws -> JSONValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .int(number)
        case .double(let number):
            guard number.isFinite else {
                throw KuraError.invalidArgument("\(number) cannot be stored (JSON numbers are finite)")
            }
            return .double(number)
        case .string(let text): return .string(text)
        case .array(let elements): return .array(try elements.map(storable))
        case .map(let members):
            return .object(JSONObject(try members.keys.sorted().map { ($0, try storable(members[$0]!)) }))
        case .transform(let transform):
            throw KuraError.invalidArgument("FieldValue.\(transform) can only be written at the top of a field")
        }
    }
}

extension KuraValue {
    /// The SDK's value for the model's. Throws when two keys of one object are distinct bytes but equal Swift
    /// strings (canonically equivalent Unicode), which a `[String: KuraValue]` map cannot keep apart.
    init(model: JSONValue) throws {
        switch model {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .integer(number)
        case .double(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .array(let elements): self = .array(try elements.map(KuraValue.init(model:)))
        case .object(let object):
            var members: [String: KuraValue] = [:]
            for (key, value) in object {
                guard members[key] == nil else {
                    throw KuraError.invalidResponse(
                        "bad JSON: keys that differ only in Unicode normalization ('\(key)')")
                }
                members[key] = try KuraValue(model: value)
            }
            self = .map(members)
        }
    }
}
