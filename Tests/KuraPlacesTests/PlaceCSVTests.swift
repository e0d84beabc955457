import KuraPlaces
import Testing

@Suite struct PlaceCSVTests {
    @Test func quotedFieldsCRLFAndRepeatedRows() throws {
        let text =
            "lat,lon,name,admin1,admin2,cc\r\n47.25368,8.85654,\"Rueti / Dorfzentrum, Suedl. Teil\",Zurich,Bezirk Hinwil,CH\r\n"
            + "35.6895,139.69171,Tokyo,Tokyo,,JP\r\n35.6895,139.69171,Tokyo,Tokyo,,JP\r\n"
        let places = try PlaceCSV.parse(text)
        #expect(places.count == 2)
        #expect(places[0].name == "Rueti / Dorfzentrum, Suedl. Teil")
        #expect(places[0].admin2 == "Bezirk Hinwil")
        #expect(places[1].admin2 == "")
        #expect(places[1].geohash == "xn774c06k")
        #expect(
            places[1].id
                == Place.documentID(
                    name: "Tokyo", admin1: "Tokyo", admin2: "", countryCode: "JP",
                    coordinate: Coordinate(latitude: 35.6895, longitude: 139.69171)))
        #expect(places[1].id.count == 18 && places[1].id.hasPrefix("gn"))
    }

    @Test func rowsWithoutANameAreLeftOut() throws {
        var skipped: [PlaceCSV.RowError] = []
        let places = try PlaceCSV.parse(
            "lat,lon,name,admin1,admin2,cc\n51.85905,58.22136,,Bashkortostan,,RU\n1,2,X,,,JP\n", skipped: &skipped)
        #expect(places.map(\.name) == ["X"])
        #expect(skipped.map(\.line) == [2])
    }

    @Test func badFilesAreRefusedWithTheLine() {
        #expect(throws: PlaceCSV.RowError.self) { try PlaceCSV.parse("a,b\n1,2\n") }
        #expect(throws: PlaceCSV.RowError.self) { try PlaceCSV.parse("lat,lon,name,admin1,admin2,cc\n95,0,X,,,JP\n") }
        #expect(throws: PlaceCSV.RowError.self) { try PlaceCSV.parse("lat,lon,name,admin1,admin2,cc\n1,2,X\n") }
    }

    @Test func theSampleHasThePlacesTheTestsNeed() {
        let names = Set(PlacesFiles.samplePlaces.map(\.name))
        for name in ["Tokyo", "Suva", "Lambasa", "Anadyr", "Longyearbyen", "Ushuaia", "McMurdo Station", "Zurich"] {
            #expect(names.contains(name), "\(name)")
        }
        let tokyo = PlacesFiles.samplePlaces.first { $0.name == "Tokyo" }!
        let ome = PlacesFiles.samplePlaces.first { $0.name == "Ome" }!
        #expect(tokyo.nearby > ome.nearby)
    }
}
