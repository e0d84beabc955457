import Foundation

/// Place names as the search compares them.
public enum PlaceName {
    /// The search key of a name: canonical decomposition (NFD), the combining diacritical marks U+0300–U+036F
    /// removed, recomposed (NFC), lower case (Unicode's default mapping), surrounding white space trimmed.
    /// `Zürich`, `ZURICH` and `zurich` share `zurich`; `São Paulo` is `sao paulo`. Only the Latin-style accents go,
    /// so Japanese voiced marks stay (`が` is not `か`). The web app computes the same key (`nameKey` in geo.js).
    public static func key(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.decomposedStringWithCanonicalMapping.unicodeScalars
        where !(0x300...0x36F).contains(scalar.value) {
            scalars.append(scalar)
        }
        return String(scalars).precomposedStringWithCanonicalMapping.lowercased()
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
