import Foundation
import KuraClient
import KuraPlaces
import Testing

/// The import and the searches on a real server, through the SDK and the app's rules.
@Suite struct PlacesOnKuraTests {
    @Test func importTwiceThenSearch() async throws {
        try await withPlacesServer { port in
            let kura = Kura(url: URL(string: "http://127.0.0.1:\(port)")!, settings: .init(session: .memory))
            _ = try await kura.auth.signIn(withEmail: "admin@example.com", password: "secret-pw")
            var importer = PlaceImport(kura: kura)
            importer.batchSize = 100
            let first = try await importer.run(PlacesFiles.samplePlaces)
            #expect(first.written == PlacesFiles.samplePlaces.count)
            let tokyoID = PlacesFiles.samplePlaces.first { $0.name == "Tokyo" }!.id
            let version = try await kura.collection("places").document(tokyoID).getDocument().version
            let second = try await importer.run(PlacesFiles.samplePlaces)
            #expect(second.written == 0)
            #expect(second.unchanged == PlacesFiles.samplePlaces.count)
            #expect(try await kura.collection("places").document(tokyoID).getDocument().version == version)

            // Anyone reads places: a client that is not signed in.
            let anonymous = Kura(url: URL(string: "http://127.0.0.1:\(port)")!, settings: .init(session: .memory))
            let source = KuraPlaceSource(kura: anonymous)
            let (found, _) = try await NearestPlaceSearch(source: source)
                .nearest(to: Coordinate(latitude: 35.6812, longitude: 139.7671))
            #expect(found?.place.name == "Tokyo")
            #expect(found?.place.countryCode == "JP")
            let (fiji, _) = try await NearestPlaceSearch(source: source)
                .nearest(to: Coordinate(latitude: -17, longitude: -179.9))
            #expect(fiji?.place.name == "Lambasa")
            #expect(try await PlaceNameSearch(source: source).search("longyear").first?.countryCode == "SJ")

            // Only admins write places.
            let user = Kura(url: URL(string: "http://127.0.0.1:\(port)")!, settings: .init(session: .memory))
            _ = try await user.auth.signIn(withEmail: "user@example.com", password: "secret-pw")
            await #expect(throws: KuraError.self) {
                try await user.collection("places").document(tokyoID).setData(["name": "Edo"])
            }
            // A user's saved places are theirs.
            let uid = try #require(user.auth.currentUser?.uid)
            try await user.collection("users").document(uid).collection("savedPlaces").document("home")
                .setData(["label": "home", "lat": 35.0, "lon": 139.0])
            await #expect(throws: KuraError.self) {
                try await anonymous.collection("users").document(uid).collection("savedPlaces").document("home")
                    .getDocument()
            }
        }
    }
}
