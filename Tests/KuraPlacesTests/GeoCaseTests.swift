import KuraPlaces
import Testing

/// The shared case file (apps/places/cases.json), which the browser test runs against geo.js too.
@Suite struct GeoCaseTests {
    @Test(arguments: PlacesFiles.caseFile.geohash)
    func geohashEncoding(_ item: Cases.GeohashCase) {
        let cell = GeohashCell(
            Coordinate(latitude: item.latitude, longitude: item.longitude), precision: item.precision)
        #expect(cell.hash == item.hash)
        #expect(GeohashCell(hash: item.hash) == cell)
    }

    @Test(arguments: PlacesFiles.caseFile.decode)
    func cellBounds(_ item: Cases.DecodeCase) throws {
        let cell = try #require(GeohashCell(hash: item.hash))
        #expect(cell.latitudes == item.south...item.north)
        #expect(cell.longitudes == item.west...item.east)
    }

    @Test(arguments: PlacesFiles.caseFile.neighbours)
    func neighbours(_ item: Cases.NeighbourCase) throws {
        #expect(try #require(GeohashCell(hash: item.hash)).neighbours.map(\.hash) == item.neighbours)
    }

    @Test(arguments: PlacesFiles.caseFile.distance)
    func distance(_ item: Cases.DistanceCase) {
        let from = Coordinate(latitude: item.from[0], longitude: item.from[1])
        let to = Coordinate(latitude: item.to[0], longitude: item.to[1])
        #expect(abs(GreatCircle.distance(from, to) - item.km) < 0.01)
        #expect(abs(GreatCircle.distance(to, from) - item.km) < 0.01)
    }

    @Test(arguments: PlacesFiles.caseFile.direction)
    func direction(_ item: Cases.DirectionCase) throws {
        let direction = try #require(CompassDirection(heading: item.heading))
        #expect(direction.abbreviation == item.abbreviation)
        #expect(direction.japaneseName == item.japanese)
    }

    @Test(arguments: PlacesFiles.caseFile.nameKey)
    func nameKey(_ item: Cases.NameKeyCase) {
        #expect(PlaceName.key(item.name) == item.key)
    }

    @Test func everyBoundaryOfEverySector() throws {
        // The seed article's table mirrored east and west (45–90° as 北西); here 45° is north-east.
        for point in CompassDirection.allCases {
            let start = point.centerHeading - 22.5
            for turn in [-720.0, -360, 0, 360, 1080] {
                #expect(CompassDirection(heading: start + turn) == point, "\(start + turn)°")
                #expect(CompassDirection(heading: point.centerHeading + 22.4999 + turn) == point)
                #expect(CompassDirection(heading: start - 0.0001 + turn) != point)
            }
        }
        #expect(CompassDirection(heading: 45)?.japaneseName == "北東")
        #expect(CompassDirection(heading: 90)?.japaneseName == "東")
        #expect(CompassDirection(heading: 270)?.japaneseName == "西")
        #expect(CompassDirection(heading: .nan) == nil)
        #expect(CompassDirection(heading: .infinity) == nil)
    }

    @Test func cellDistanceIsNeverMoreThanTheDistanceToAPointInside() {
        // A lower bound is what the search needs: check it against the corners and centre of many cells.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let point = Coordinate(
                latitude: Double.random(in: -90...90, using: &generator),
                longitude: Double.random(in: -180...180, using: &generator))
            let precision = Int.random(in: 1...4, using: &generator)
            let cell = GeohashCell(
                Coordinate(
                    latitude: Double.random(in: -90...90, using: &generator),
                    longitude: Double.random(in: -180...180, using: &generator)), precision: precision)
            let bound = cell.distance(from: point)
            for latitude in [cell.latitudes.lowerBound, cell.center.latitude, cell.latitudes.upperBound] {
                for longitude in [cell.longitudes.lowerBound, cell.center.longitude, cell.longitudes.upperBound] {
                    let inside = GreatCircle.distance(point, Coordinate(latitude: latitude, longitude: longitude))
                    #expect(bound <= inside + 1e-6, "\(point) to \(cell)")
                }
            }
        }
    }
}
