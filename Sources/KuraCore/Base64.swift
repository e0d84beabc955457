import CSodium

/// Base64 through libsodium (`sodium_bin2base64`, `sodium_base642bin`): standard with padding for MIME, and
/// unpadded base64url for JWTs, JWKs and tokens.
public enum Base64 {
    public enum Variant: Sendable {
        /// RFC 4648 §4 with `=` padding.
        case standard
        /// RFC 4648 §5 (`-` and `_`), no padding.
        case urlSafe

        var sodium: Int32 {
            switch self {
            case .standard: sodium_base64_VARIANT_ORIGINAL
            case .urlSafe: sodium_base64_VARIANT_URLSAFE_NO_PADDING
            }
        }
    }

    /// `bytes` encoded on one line.
    public static func encode(_ bytes: some Collection<UInt8>, _ variant: Variant = .standard) -> String {
        let input = Array(bytes)
        let length = sodium_base64_encoded_len(input.count, variant.sodium)
        var out = [CChar](repeating: 0, count: length)
        input.withUnsafeBufferPointer { source in
            _ = sodium_bin2base64(&out, length, source.baseAddress, input.count, variant.sodium)
        }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The decoded bytes, or `nil` for anything that is not exactly a valid encoding in `variant` (characters in
    /// `ignoring`, such as MIME's line breaks, are skipped).
    public static func decode(_ text: some StringProtocol, _ variant: Variant = .standard, ignoring: String = "")
        -> [UInt8]?
    {
        let input = Array(text.utf8)
        var out = [UInt8](repeating: 0, count: input.count * 3 / 4 + 3)
        var length = 0
        let rc = input.withUnsafeBufferPointer { source in
            source.withMemoryRebound(to: CChar.self) { chars in
                sodium_base642bin(
                    &out, out.count, chars.baseAddress, input.count, ignoring.isEmpty ? nil : ignoring, &length, nil,
                    variant.sodium)
            }
        }
        guard rc == 0 else { return nil }
        return Array(out.prefix(length))
    }
}

extension String {
    /// `self` with `&`, `<`, `>`, `"` and `'` escaped for HTML text and attribute values.
    public var htmlEscaped: String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for character in self {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
