import KuraPlaces
import Testing

/// The searches on the sample in memory, checked against a search of every place.
@Suite struct NearestPlaceSearchTests {
    static let list = PlaceList(PlacesFiles.samplePlaces)

    static let namedPoints: [(String, Coordinate)] = [
        ("Tokyo Station", Coordinate(latitude: 35.6812, longitude: 139.7671)),
        ("the Pacific east of Japan", Coordinate(latitude: 30, longitude: 150)),
        ("Fiji, east of the antimeridian", Coordinate(latitude: -17, longitude: -179.9)),
        ("Fiji, west of it", Coordinate(latitude: -16.5, longitude: 179.99)),
        ("the Bering Strait", Coordinate(latitude: 65.8, longitude: -169.5)),
        ("near the north pole", Coordinate(latitude: 89.9, longitude: 0)),
        ("the north pole", Coordinate(latitude: 90, longitude: 123)),
        ("the south pole", Coordinate(latitude: -90, longitude: 0)),
        ("the Gulf of Guinea", Coordinate(latitude: 0, longitude: 0)),
        ("180° E", Coordinate(latitude: 0, longitude: 180)),
        ("Point Nemo", Coordinate(latitude: -48.88, longitude: -123.39)),
    ]

    @Test func namedPointsMatchTheFullScan() async throws {
        for (name, point) in Self.namedPoints {
            let (found, _) = try await NearestPlaceSearch(source: Self.list).nearest(to: point)
            let expected = Self.list.nearestByBruteForce(to: point)
            #expect(found?.place == expected?.place, "\(name)")
        }
    }

    @Test func tokyoStationIsInTokyo() async throws {
        let (found, statistics) = try await NearestPlaceSearch(source: Self.list)
            .nearest(to: Coordinate(latitude: 35.6812, longitude: 139.7671))
        let place = try #require(found?.place)
        #expect(place.name == "Tokyo" && place.countryCode == "JP")
        #expect(abs(found!.distance - 6.9) < 0.1)
        #expect(statistics.rounds == 1)  // The first round's cells answer it.
    }

    @Test func randomPointsMatchTheFullScan() async throws {
        var generator = SplitMixForTests(seed: 7)
        var search = NearestPlaceSearch(source: Self.list)
        for limit in [3, 50] {
            search.limit = limit  // A small limit makes full answers, and the splitting of cells, common.
            for _ in 0..<300 {
                let point = Coordinate(
                    latitude: generator.unit() * 180 - 90, longitude: generator.unit() * 360 - 180)
                let (found, _) = try await search.nearest(to: point)
                let expected = Self.list.nearestByBruteForce(to: point)
                #expect(found?.place == expected?.place, "\(point), limit \(limit)")
            }
        }
    }

    @Test func pointsAlongTheAntimeridianAndThePoles() async throws {
        for latitude in stride(from: -90.0, through: 90, by: 7.5) {
            for longitude in [-180.0, -179.999, 179.999, 180] {
                let point = Coordinate(latitude: latitude, longitude: longitude)
                let (found, _) = try await NearestPlaceSearch(source: Self.list).nearest(to: point)
                #expect(found?.place == Self.list.nearestByBruteForce(to: point)?.place, "\(point)")
            }
        }
    }

    @Test func emptySourceFindsNothing() async throws {
        let (found, _) = try await NearestPlaceSearch(source: PlaceList([])).nearest(
            to: Coordinate(latitude: 1, longitude: 2))
        #expect(found == nil)
    }

    @Test func nameSearchIgnoresCaseAndAccents() async throws {
        let search = PlaceNameSearch(source: Self.list)
        #expect(try await search.search("TOKYO").first?.name == "Tokyo")
        #expect(try await search.search("zürich").first?.name == "Zurich")
        #expect(try await search.search("são").first?.name == "Sao Paulo")
        #expect(try await search.search("   ").isEmpty)
        #expect(try await search.search("xyzzy").isEmpty)
        // Every answer starts with the key.
        for place in try await search.search("sa", limit: 50) { #expect(place.nameKey.hasPrefix("sa")) }
    }

    @Test func rankingPutsExactNamesAndBusierPlacesFirst() {
        let point = Coordinate(latitude: 0, longitude: 0)
        let quiet = Place(name: "Parisville", admin1: "", admin2: "", countryCode: "US", coordinate: point, nearby: 1)
        let exactQuiet = Place(
            name: "Paris", admin1: "Texas", admin2: "", countryCode: "US", coordinate: point, nearby: 2)
        let exactBusy = Place(
            name: "Paris", admin1: "Ile-de-France", admin2: "", countryCode: "FR", coordinate: point, nearby: 90)
        #expect(PlaceNameSearch.rank([quiet, exactQuiet, exactBusy], key: "paris") == [exactBusy, exactQuiet, quiet])
    }
}

/// A seeded generator, so failures repeat.
struct SplitMixForTests {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func unit() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
}
