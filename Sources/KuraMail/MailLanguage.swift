import KuraCore
import KuraModel

/// The languages the mail templates are written in.
public enum MailLanguage: String, Sendable, CaseIterable {
    case english = "en"
    case japanese = "ja"

    /// The language to write to someone whose client sent `acceptLanguage` (an HTTP `Accept-Language` value such as
    /// `ja-JP,ja;q=0.9,en;q=0.8`): the supported language with the highest q-value, matched on the primary subtag
    /// case-insensitively; ties go to the earlier entry. `*` stands for English. Entries with `q=0` or a malformed
    /// q-value are skipped. English when nothing matches or the header is absent.
    public static func preferred(acceptLanguage: String?) -> MailLanguage {
        guard let acceptLanguage else { return .english }
        var best: (language: MailLanguage, q: Double)?
        for item in acceptLanguage.split(separator: ",") {
            let parameters = item.split(separator: ";")
            guard let rawTag = parameters.first else { continue }
            let tag = String(rawTag).trimmingSpaces().lowercased()
            var q = 1.0
            var valid = true
            for parameter in parameters.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, String(pair[0]).trimmingSpaces().lowercased() == "q" else { continue }
                let text = String(pair[1]).trimmingSpaces()
                if let value = Double(text), (0...1).contains(value), text.utf8.count <= 5,
                    text.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) })
                {
                    q = value
                } else {
                    valid = false
                }
            }
            guard valid, q > 0 else { continue }
            let primary = tag.split(separator: "-", maxSplits: 1).first.map(String.init) ?? tag
            let language: MailLanguage? =
                switch primary {
                case "*": .english
                default: MailLanguage(rawValue: primary)
                }
            guard let language else { continue }
            if best == nil || q > best!.q { best = (language, q) }
        }
        return best?.language ?? .english
    }
}
