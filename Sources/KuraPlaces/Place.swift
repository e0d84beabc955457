/// One place of the GeoNames data set, as stored in Kura at `places/{id}`.
public struct Place: Hashable, Sendable {
    /// The document ID: `gn` and 16 hex digits of a hash of the GeoNames row, so importing the same row twice
    /// writes the same document.
    public var id: String
    public var name: String
    /// First-level division: prefecture, state, province (may be empty).
    public var admin1: String
    /// Second-level division: county, district (often empty).
    public var admin2: String
    /// ISO 3166-1 alpha-2 country code.
    public var countryCode: String
    public var coordinate: Coordinate
    /// `PlaceName.key(name)`, for prefix search.
    public var nameKey: String
    /// The place's geohash, `Place.geohashPrecision` characters.
    public var geohash: String
    /// How many places of the data set lie within `Place.nearbyRadius` km (the place itself not counted): the
    /// search's stand-in for population, which the data set does not carry.
    public var nearby: Int

    /// Characters of the stored geohash (about 5 m).
    public static let geohashPrecision = 9
    /// The radius of `nearby`, in kilometres.
    public static let nearbyRadius = 25.0
    /// The collection holding the places.
    public static let collection = "places"

    public init(
        id: String? = nil, name: String, admin1: String, admin2: String, countryCode: String,
        coordinate: Coordinate, nearby: Int = 0
    ) {
        self.name = name
        self.admin1 = admin1
        self.admin2 = admin2
        self.countryCode = countryCode
        self.coordinate = coordinate
        self.nameKey = PlaceName.key(name)
        self.geohash = GeohashCell(coordinate, precision: Place.geohashPrecision).hash
        self.nearby = nearby
        self.id =
            id
            ?? Place.documentID(
                name: name, admin1: admin1, admin2: admin2, countryCode: countryCode,
                coordinate: coordinate)
    }

    /// `gn` + FNV-1a (64 bits) of the row's fields joined by U+001F, in hex.
    public static func documentID(
        name: String, admin1: String, admin2: String, countryCode: String, coordinate: Coordinate
    ) -> String {
        let text = [
            String(coordinate.latitude), String(coordinate.longitude), name, admin1, admin2, countryCode,
        ].joined(separator: "\u{1F}")
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "gn" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// "Tokyo, Tokyo, JP": the name and the divisions that differ from it, then the country code.
    public var label: String {
        var parts = [name]
        for part in [admin2, admin1] where !part.isEmpty && !parts.contains(part) { parts.append(part) }
        return (parts + [countryCode]).joined(separator: ", ")
    }
}

/// A place with its distance from the point that was looked up.
public struct PlaceDistance: Hashable, Sendable {
    public var place: Place
    /// Great-circle distance in kilometres.
    public var distance: Double

    public init(place: Place, distance: Double) {
        self.place = place
        self.distance = distance
    }
}
