/// A path to a field inside a document: `a.b.c`. Segments that are not plain identifiers are quoted with
/// backticks (`` a.`b.c`.d ``), and inside backticks `\` escapes `` ` `` and `\`. Valid by construction:
/// at least one segment, none empty. Identity is the UTF-8 bytes of the field names (docs/api.md, "Identity").
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    /// The field names from the outermost in.
    public let segments: [String]

    /// A path from already-split field names; throws if any is empty.
    public init(segments: [String]) throws {
        guard !segments.isEmpty, segments.allSatisfy({ !$0.isEmpty }) else {
            throw ValidationError.invalidArgument("field paths must not be empty or contain empty field names")
        }
        self.segments = segments
    }

    /// Parses the dotted form; throws 400 `INVALID_ARGUMENT`.
    public init(_ string: String) throws {
        var segments: [String] = []
        var current: [UInt8] = []
        var quoted = false
        var wasQuoted = false
        var iterator = Array(string.utf8).makeIterator()
        func fail(_ why: String) -> ValidationError {
            .invalidArgument("invalid field path '\(string.prefix(200))': \(why)")
        }
        while let byte = iterator.next() {
            if quoted {
                if byte == UInt8(ascii: "\\") {
                    guard let escaped = iterator.next() else { throw fail("dangling escape") }
                    current.append(escaped)
                } else if byte == UInt8(ascii: "`") {
                    quoted = false
                } else {
                    current.append(byte)
                }
            } else if byte == UInt8(ascii: "`") {
                guard current.isEmpty, !wasQuoted else { throw fail("misplaced backtick") }
                quoted = true
                wasQuoted = true
            } else if byte == UInt8(ascii: ".") {
                guard !current.isEmpty else { throw fail("empty field name") }
                segments.append(String(decoding: current, as: UTF8.self))
                current = []
                wasQuoted = false
            } else {
                guard !wasQuoted else { throw fail("text after a closing backtick") }
                current.append(byte)
            }
        }
        guard !quoted else { throw fail("unterminated backtick") }
        guard !current.isEmpty else { throw fail("empty field name") }
        segments.append(String(decoding: current, as: UTF8.self))
        self.segments = segments
    }

    /// The canonical dotted form; `FieldPath(description)` reproduces `self`.
    public var description: String {
        segments.map(Self.canonical(segment:)).joined(separator: ".")
    }

    /// One segment as the dotted form writes it: as it is when it is a simple name (letters, digits and `_`, not
    /// starting with a digit), otherwise between backticks with `` ` `` and `\` escaped.
    package static func canonical(segment: String) -> String {
        let simple = segment.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "_") || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        }
        if simple, let first = segment.utf8.first, !(first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) {
            return segment
        }
        // By bytes, as the parser reads it: a `Character` comparison would miss a backtick followed by a combining
        // mark (one `Character`, not equal to "`") and leave it unescaped.
        var quoted: [UInt8] = [UInt8(ascii: "`")]
        for byte in segment.utf8 {
            if byte == UInt8(ascii: "`") || byte == UInt8(ascii: "\\") { quoted.append(UInt8(ascii: "\\")) }
            quoted.append(byte)
        }
        quoted.append(UInt8(ascii: "`"))
        return String(decoding: quoted, as: UTF8.self)
    }

    /// The path with `name` appended.
    public func appending(_ name: String) -> FieldPath {
        // `name` comes from an existing object key, which `DocumentFields` guarantees is non-empty.
        FieldPath(unchecked: segments + [name])
    }

    package init(unchecked segments: [String]) { self.segments = segments }

    /// `true` when `self` equals `other` or lies inside it (`a.b` is inside `a`).
    public func isWithin(_ other: FieldPath) -> Bool {
        segments.count >= other.segments.count
            && Array(segments.prefix(other.segments.count)).bytesEqual(other.segments)
    }

    /// Same field names, byte for byte.
    public static func == (lhs: FieldPath, rhs: FieldPath) -> Bool { lhs.segments.bytesEqual(rhs.segments) }

    public func hash(into hasher: inout Hasher) { segments.hashBytes(into: &hasher) }
}

extension JSONObject {
    /// The value at `path`, descending through nested objects.
    public func value(at path: FieldPath) -> JSONValue? {
        var current: JSONObject = self
        for (position, name) in path.segments.enumerated() {
            guard let value = current[name] else { return nil }
            if position == path.segments.count - 1 { return value }
            guard case .object(let inner) = value else { return nil }
            current = inner
        }
        return nil
    }

    /// Sets (or with `nil` removes) the value at `path`, creating intermediate objects and replacing non-object
    /// intermediates.
    public mutating func setValue(_ value: JSONValue?, at path: FieldPath) {
        setValue(value, at: path.segments[...])
    }

    private mutating func setValue(_ value: JSONValue?, at segments: ArraySlice<String>) {
        guard let first = segments.first else { return }
        if segments.count == 1 {
            self[first] = value
            return
        }
        var inner = self[first]?.objectValue ?? JSONObject()
        if value == nil && self[first]?.objectValue == nil { return }
        inner.setValue(value, at: segments.dropFirst())
        self[first] = .object(inner)
    }
}
