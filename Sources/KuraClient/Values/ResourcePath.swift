import Foundation
internal import KuraModel

/// Document and collection paths (`users/u1/todos/t9`): checked on the client with the server's rules, so a bad
/// path fails with `.invalidPath` before anything is sent.
enum ResourcePath {
    /// `"/users/u1/"` → `["users", "u1"]` (outer slashes are ignored; inner empty segments stay, to be refused).
    static func split(_ path: String) -> [String] {
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        while segments.first == "" { segments.removeFirst() }
        while segments.last == "" { segments.removeLast() }
        return segments
    }

    /// Throws `.invalidPath` unless `segments` is a document path (`document: true`) or a collection path.
    static func validate(_ segments: [String], document: Bool) throws {
        let joined = segments.joined(separator: "/")
        guard !segments.isEmpty, segments.count <= KuraModel.ResourcePath.maxSegments else {
            let most = KuraModel.ResourcePath.maxSegments
            throw KuraError(.invalidPath, "'\(joined)' is not a valid path (1 to \(most) segments)")
        }
        for id in segments { try validateID(id) }
        guard (segments.count % 2 == 0) == document else {
            let kind = document ? "document" : "collection"
            throw KuraError(
                .invalidPath,
                "'\(joined)' is not a \(kind) path (\(kind)s have \(document ? "an even" : "an odd") number of segments)"
            )
        }
    }

    /// Throws `.invalidPath` unless `id` is a valid document or collection ID, by the server's own rule
    /// (KuraModel's `ResourcePath.validateID`: by bytes, no `/`, not `.`/`..`, not `__…__`, at most 1500 bytes).
    static func validateID(_ id: String) throws {
        do { try KuraModel.ResourcePath.validateID(id) } catch let error as ValidationError {
            throw KuraError(.invalidPath, "'\(id)' is not a valid ID: \(error.message)")
        }
    }
}

/// Document IDs made on the client, in the server's format: 20 base62 characters, 9 from the time (so new
/// documents sort together in the indexes) and 11 random ones.
enum AutoID {
    private static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    static func make(now: Date = Date()) -> String {
        var time = UInt64(max(0, now.timeIntervalSince1970 * 1_000_000))
        var prefix = [Character](repeating: "0", count: 9)
        for index in stride(from: 8, through: 0, by: -1) {
            prefix[index] = digits[Int(time % 62)]
            time /= 62
        }
        var generator = SystemRandomNumberGenerator()
        let random = (0..<11).map { _ in digits[Int(generator.next(upperBound: UInt64(62)))] }
        return String(prefix + random)
    }
}

/// A field path for `/api/commit` and queries from a list of field names: plain names as they are, others quoted
/// with backticks (`` a.`b.c` ``), as the server parses them.
enum FieldPathText {
    static func join(_ names: [String]) -> String {
        names.map { name in
            let plain = name.unicodeScalars.allSatisfy {
                ($0.isASCII && CharacterSet.alphanumerics.contains($0)) || $0 == "_"
            }
            if plain, let first = name.unicodeScalars.first, !("0"..."9").contains(first) { return name }
            // By code point, as the server reads bytes: a `Character` holding "`" and a combining mark is not
            // equal to "`" and would go unescaped.
            var quoted = String.UnicodeScalarView()
            quoted.append("`")
            for scalar in name.unicodeScalars {
                if scalar == "`" || scalar == "\\" { quoted.append("\\") }
                quoted.append(scalar)
            }
            quoted.append("`")
            return String(quoted)
        }.joined(separator: ".")
    }

    /// Splits a dotted field path as the server does (backticks quote, `\` escapes inside them).
    static func split(_ path: String) -> [String] {
        var names: [String] = []
        var current = String.UnicodeScalarView()
        var quoted = false
        var escaping = false
        for character in path.unicodeScalars {
            if escaping {
                current.append(character)
                escaping = false
            } else if quoted {
                if character == "\\" {
                    escaping = true
                } else if character == "`" {
                    quoted = false
                } else {
                    current.append(character)
                }
            } else if character == "`" {
                quoted = true
            } else if character == "." {
                names.append(String(current))
                current = String.UnicodeScalarView()
            } else {
                current.append(character)
            }
        }
        names.append(String(current))
        return names
    }
}
