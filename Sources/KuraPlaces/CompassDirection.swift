/// The eight compass points. Each covers the 45° sector centred on it: north is 337.5° up to (not including)
/// 22.5°, north-east 22.5° up to 67.5°, and so on clockwise; a boundary belongs to the point clockwise of it.
public enum CompassDirection: Int, CaseIterable, Sendable {
    case north, northEast, east, southEast, south, southWest, west, northWest

    /// The direction a heading (degrees clockwise from north) points to; any finite angle, negative or ≥ 360°,
    /// is taken modulo 360. Nil for NaN and infinities.
    public init?(heading: Double) {
        guard let normalized = CompassDirection.normalize(heading) else { return nil }
        // Shift by half a sector so that each sector starts at a multiple of 45°.
        let sector = Int(((normalized + 22.5) / 45).rounded(.down)) % 8
        self = CompassDirection(rawValue: sector)!
    }

    /// A heading in 0 ..< 360; nil when it is not finite.
    public static func normalize(_ heading: Double) -> Double? {
        guard heading.isFinite else { return nil }
        let remainder = heading.truncatingRemainder(dividingBy: 360)
        let normalized = remainder < 0 ? remainder + 360 : remainder
        // -1e-15 + 360 rounds to 360.0 in doubles; that is north.
        return normalized >= 360 ? 0 : normalized
    }

    /// N, NE, E, SE, S, SW, W, NW.
    public var abbreviation: String { ["N", "NE", "E", "SE", "S", "SW", "W", "NW"][rawValue] }
    /// north, north-east, …
    public var englishName: String {
        ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"][rawValue]
    }
    /// 北, 北東, 東, 南東, 南, 南西, 西, 北西.
    public var japaneseName: String { ["北", "北東", "東", "南東", "南", "南西", "西", "北西"][rawValue] }
    /// The heading at the centre of the sector (0, 45, …, 315).
    public var centerHeading: Double { Double(rawValue) * 45 }
}
