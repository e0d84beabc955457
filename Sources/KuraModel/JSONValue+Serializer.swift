extension JSONValue {
    /// The compact JSON encoding (no whitespace, members in order). Doubles use the shortest form that reads back
    /// as the same double and always carry a `.` or exponent, so they stay doubles when parsed again.
    public var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        appendJSON(to: &out)
        return out
    }

    /// The compact JSON encoding as a string.
    public var jsonString: String { String(decoding: jsonBytes, as: UTF8.self) }

    /// Appends the compact JSON encoding to `out`.
    public func appendJSON(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): out.append(contentsOf: String(value).utf8)
        case .double(let value): JSONValue.appendDouble(value, to: &out)
        case .string(let value): appendJSONString(value, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                element.appendJSON(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (position, member) in object.members.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                appendJSONString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.appendJSON(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func appendDouble(_ value: Double, to out: inout [UInt8]) {
        // JSON has no NaN or infinity; the parser never produces them, so this only guards hand-built values.
        guard value.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        // Swift's description is the shortest round-tripping form: "1.0", "1e-05", "1.5e+300" — all valid JSON.
        out.append(contentsOf: value.description.utf8)
    }
}
