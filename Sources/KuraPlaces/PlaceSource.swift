/// Where the searches read places from: Kura (`KuraPlaceSource`) or an array in memory (`PlaceList`, for tests
/// and for checking results against a brute-force search).
public protocol PlaceSource: Sendable {
    /// Places with `lower <= geohash < upper`, in geohash order, at most `limit`.
    func places(geohashFrom lower: String, below upper: String, limit: Int) async throws -> [Place]
    /// Places with `lower <= nameKey < upper`, in nameKey order, at most `limit`.
    func places(nameKeyFrom lower: String, below upper: String, limit: Int) async throws -> [Place]
}

/// Places held in memory, answering the same range reads as Kura would (strings compared by UTF-8 bytes).
public struct PlaceList: PlaceSource {
    /// Places sorted by a key's bytes, then by ID.
    struct Index: Sendable {
        let keys: [[UInt8]]
        let places: [Place]

        init(_ places: [Place], key: (Place) -> String) {
            let sorted = places.map { (Array(key($0).utf8), $0) }.sorted {
                $0.0.lexicographicallyPrecedes($1.0) || ($0.0 == $1.0 && $0.1.id < $1.1.id)
            }
            keys = sorted.map(\.0)
            self.places = sorted.map(\.1)
        }

        func range(_ lower: String, _ upper: String, limit: Int) -> [Place] {
            let lowerBytes = Array(lower.utf8)
            let upperBytes = Array(upper.utf8)
            var low = 0
            var high = keys.count
            while low < high {
                let middle = (low + high) / 2
                if keys[middle].lexicographicallyPrecedes(lowerBytes) { low = middle + 1 } else { high = middle }
            }
            var found: [Place] = []
            var index = low
            while index < keys.count, found.count < limit, keys[index].lexicographicallyPrecedes(upperBytes) {
                found.append(places[index])
                index += 1
            }
            return found
        }
    }

    let byGeohash: Index
    let byName: Index

    public init(_ places: [Place]) {
        byGeohash = Index(places, key: \.geohash)
        byName = Index(places, key: \.nameKey)
    }

    public func places(geohashFrom lower: String, below upper: String, limit: Int) async throws -> [Place] {
        byGeohash.range(lower, upper, limit: limit)
    }

    public func places(nameKeyFrom lower: String, below upper: String, limit: Int) async throws -> [Place] {
        byName.range(lower, upper, limit: limit)
    }

    /// The nearest place by checking every one: the answer `NearestPlaceSearch` must match.
    public func nearestByBruteForce(to point: Coordinate) -> PlaceDistance? {
        byGeohash.places.map { PlaceDistance(place: $0, distance: GreatCircle.distance(point, $0.coordinate)) }
            .min { ($0.distance, $0.place.id) < ($1.distance, $1.place.id) }
    }
}
