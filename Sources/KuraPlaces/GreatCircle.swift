import Foundation

/// A point on the Earth in degrees (WGS 84 latitude and longitude, as GeoNames and browsers give them).
public struct Coordinate: Hashable, Sendable, CustomStringConvertible {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Nil unless latitude is in −90…90 and longitude in −180…180 (both finite).
    public init?(validLatitude latitude: Double, longitude: Double) {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        self.init(latitude: latitude, longitude: longitude)
    }

    public var description: String {
        "\(Coordinate.format(latitude, "N", "S")) \(Coordinate.format(longitude, "E", "W"))"
    }

    /// `35.6812° N`: four decimals (about 10 m).
    public static func format(_ degrees: Double, _ positive: String, _ negative: String) -> String {
        String(format: "%.4f° %@", abs(degrees), degrees < 0 ? negative : positive)
    }
}

/// Distances on a sphere of the Earth's mean radius.
public enum GreatCircle {
    /// The mean Earth radius in kilometres (IUGG).
    public static let earthRadius = 6371.0088

    /// The great-circle distance in kilometres (haversine formula, stable for small distances).
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let phi1 = radians(a.latitude)
        let phi2 = radians(b.latitude)
        let dPhi = phi2 - phi1
        let dLambda = radians(b.longitude - a.longitude)
        let h = sin(dPhi / 2) * sin(dPhi / 2) + cos(phi1) * cos(phi2) * sin(dLambda / 2) * sin(dLambda / 2)
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }

    /// The distance from `point` to the meridian `longitude` between the given latitudes.
    static func distanceToMeridianSegment(_ point: Coordinate, longitude: Double, latitudes: ClosedRange<Double>)
        -> Double
    {
        var best = min(
            distance(point, Coordinate(latitude: latitudes.lowerBound, longitude: longitude)),
            distance(point, Coordinate(latitude: latitudes.upperBound, longitude: longitude)))
        // The foot of the perpendicular from the point to the meridian's great circle, when it lies on the segment.
        let dLambda = radians(longitude - point.longitude)
        if cos(dLambda) > 0 {
            let foot = degrees(atan2(tan(radians(point.latitude)), cos(dLambda)))
            if latitudes.contains(foot) {
                best = min(best, distance(point, Coordinate(latitude: foot, longitude: longitude)))
            }
        }
        return best
    }

    static func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
    static func degrees(_ radians: Double) -> Double { radians * 180 / .pi }
}
