/// Geohash cells: the world split in a grid of 32^n cells named by base-32 strings, so that every cell's places
/// are one range of a sorted string field (`geohash >= "xn76"`, `< "xn76~"`).
///
/// A hash of `n` characters has `5n` bits, interleaved longitude first: `ceil(5n/2)` bits of longitude and
/// `floor(5n/2)` of latitude. The cell is the grid square (`latitudeIndex`, `longitudeIndex`) of that size.
public struct GeohashCell: Hashable, Sendable, CustomStringConvertible {
    /// The base-32 alphabet (no a, i, l, o).
    public static let alphabet: [Character] = Array("0123456789bcdefghjkmnpqrstuvwxyz")
    /// The longest hash handled (60 bits fit in an `Int`).
    public static let maximumPrecision = 12

    /// Characters in the hash.
    public let precision: Int
    /// The row, counted from the south pole.
    public let latitudeIndex: Int
    /// The column, counted eastward from 180° W.
    public let longitudeIndex: Int

    /// Bits of longitude in a hash of `precision` characters.
    public static func longitudeBits(_ precision: Int) -> Int { (5 * precision + 1) / 2 }
    /// Bits of latitude in a hash of `precision` characters.
    public static func latitudeBits(_ precision: Int) -> Int { 5 * precision / 2 }
    /// Height of a cell in degrees.
    public static func height(_ precision: Int) -> Double { 180 / Double(1 << latitudeBits(precision)) }
    /// Width of a cell in degrees.
    public static func width(_ precision: Int) -> Double { 360 / Double(1 << longitudeBits(precision)) }
    /// Rows of the grid.
    public static func rows(_ precision: Int) -> Int { 1 << latitudeBits(precision) }
    /// Columns of the grid.
    public static func columns(_ precision: Int) -> Int { 1 << longitudeBits(precision) }

    /// The cell in row `latitudeIndex` and column `longitudeIndex` (wrapped around the antimeridian).
    public init(precision: Int, latitudeIndex: Int, longitudeIndex: Int) {
        precondition((1...Self.maximumPrecision).contains(precision), "geohash precision 1...12")
        let columns = Self.columns(precision)
        self.precision = precision
        self.latitudeIndex = min(max(latitudeIndex, 0), Self.rows(precision) - 1)
        self.longitudeIndex = ((longitudeIndex % columns) + columns) % columns
    }

    /// The cell of `precision` characters holding the point; 90° N falls in the top row, 180° E in the first
    /// column (it is 180° W).
    public init(_ point: Coordinate, precision: Int) {
        let row = Int(((point.latitude + 90) / Self.height(precision)).rounded(.down))
        let column = Int(((point.longitude + 180) / Self.width(precision)).rounded(.down))
        self.init(precision: precision, latitudeIndex: row, longitudeIndex: column)
    }

    /// The cell a hash names; nil when it is empty, too long or has a character outside the alphabet.
    public init?(hash: String) {
        let characters = Array(hash.lowercased())
        guard (1...Self.maximumPrecision).contains(characters.count) else { return nil }
        var bits = 0
        for character in characters {
            guard let value = Self.alphabet.firstIndex(of: character) else { return nil }
            bits = bits << 5 | value
        }
        let total = 5 * characters.count
        var latitude = 0
        var longitude = 0
        for position in 0..<total {
            let bit = bits >> (total - 1 - position) & 1
            if position % 2 == 0 { longitude = longitude << 1 | bit } else { latitude = latitude << 1 | bit }
        }
        self.init(precision: characters.count, latitudeIndex: latitude, longitudeIndex: longitude)
    }

    /// The hash: the bits of the two indexes interleaved, longitude first, five to a character.
    public var hash: String {
        let total = 5 * precision
        let latitudeBits = Self.latitudeBits(precision)
        let longitudeBits = Self.longitudeBits(precision)
        var bits = 0
        var latitudeLeft = latitudeBits
        var longitudeLeft = longitudeBits
        for position in 0..<total {
            let bit: Int
            if position % 2 == 0 {
                longitudeLeft -= 1
                bit = longitudeIndex >> longitudeLeft & 1
            } else {
                latitudeLeft -= 1
                bit = latitudeIndex >> latitudeLeft & 1
            }
            bits = bits << 1 | bit
        }
        var characters: [Character] = []
        for index in stride(from: precision - 1, through: 0, by: -1) {
            characters.append(Self.alphabet[bits >> (5 * index) & 31])
        }
        return String(characters)
    }

    public var description: String { hash }

    /// Southern and northern edges in degrees.
    public var latitudes: ClosedRange<Double> {
        let height = Self.height(precision)
        return Double(latitudeIndex) * height - 90...Double(latitudeIndex + 1) * height - 90
    }

    /// Western and eastern edges in degrees.
    public var longitudes: ClosedRange<Double> {
        let width = Self.width(precision)
        return Double(longitudeIndex) * width - 180...Double(longitudeIndex + 1) * width - 180
    }

    /// The centre of the cell.
    public var center: Coordinate {
        Coordinate(
            latitude: (latitudes.lowerBound + latitudes.upperBound) / 2,
            longitude: (longitudes.lowerBound + longitudes.upperBound) / 2)
    }

    /// The eight cells around this one (fewer in the top and bottom rows, where there is nothing beyond the pole
    /// in the grid); east and west wrap across the antimeridian. Order: N, NE, E, SE, S, SW, W, NW.
    public var neighbours: [GeohashCell] {
        let steps = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
        let rows = Self.rows(precision)
        var cells: [GeohashCell] = []
        for (up, right) in steps {
            let row = latitudeIndex + up
            guard row >= 0 && row < rows else { continue }
            let cell = GeohashCell(precision: precision, latitudeIndex: row, longitudeIndex: longitudeIndex + right)
            if cell != self && !cells.contains(cell) { cells.append(cell) }
        }
        return cells
    }

    /// The 32 cells one character longer.
    public var children: [GeohashCell] {
        let prefix = hash
        return Self.alphabet.compactMap { GeohashCell(hash: prefix + String($0)) }
    }

    /// The range of hashes inside the cell, as the bounds of a query: `lower <= geohash < upper`. `~` sorts
    /// after every character of the alphabet.
    public var range: (lower: String, upper: String) { (hash, hash + "~") }

    /// The shortest great-circle distance in kilometres from `point` to any point of the cell (0 inside).
    public func distance(from point: Coordinate) -> Double {
        if longitudes.contains(point.longitude) {
            // Inside the cell's band of longitudes the nearest point is straight north or south.
            let latitude = min(max(point.latitude, latitudes.lowerBound), latitudes.upperBound)
            return GreatCircle.distance(point, Coordinate(latitude: latitude, longitude: point.longitude))
        }
        // Otherwise it is on the western or the eastern edge: along any parallel the distance grows with the
        // difference in longitude, so no point inside an edge of latitude is nearer than its ends.
        return min(
            GreatCircle.distanceToMeridianSegment(point, longitude: longitudes.lowerBound, latitudes: latitudes),
            GreatCircle.distanceToMeridianSegment(point, longitude: longitudes.upperBound, latitudes: latitudes))
    }
}
