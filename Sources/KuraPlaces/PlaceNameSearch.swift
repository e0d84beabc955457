/// Forward geocoding: places whose name starts with what was typed, case- and accent-insensitive.
///
/// One range read on `nameKey` (`key <= nameKey < key + U+10FFFF`) reads up to `candidates` places in name
/// order; they are ranked by exact match first, then by `nearby` (the places within 25 km: large towns have many
/// neighbours; the data set has no population), then by name and country. For a short prefix matching more than
/// `candidates` names, the ranking covers the first `candidates` names only.
public struct PlaceNameSearch: Sendable {
    public let source: any PlaceSource
    /// Places read per search.
    public var candidates = 200

    public init(source: any PlaceSource) { self.source = source }

    /// Up to `limit` places, best first; empty when the key of `text` is empty.
    public func search(_ text: String, limit: Int = 10) async throws -> [Place] {
        let key = PlaceName.key(text)
        guard !key.isEmpty else { return [] }
        let found = try await source.places(nameKeyFrom: key, below: key + "\u{10FFFF}", limit: candidates)
        return Array(PlaceNameSearch.rank(found, key: key).prefix(limit))
    }

    /// The ranking: exact key first, then more `nearby`, then name, country, ID.
    public static func rank(_ places: [Place], key: String) -> [Place] {
        places.sorted { a, b in
            let exactA = a.nameKey == key
            let exactB = b.nameKey == key
            if exactA != exactB { return exactA }
            if a.nearby != b.nearby { return a.nearby > b.nearby }
            return (a.name, a.countryCode, a.id) < (b.name, b.countryCode, b.id)
        }
    }
}
