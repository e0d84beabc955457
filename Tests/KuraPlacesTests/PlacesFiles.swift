import Foundation
import KuraPlaces

/// The app's files the tests share with the browser test: apps/places/cases.json, sample.csv, places.rules.
enum PlacesFiles {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("apps/places")
    static let cases = directory.appendingPathComponent("cases.json")
    static let sample = directory.appendingPathComponent("sample.csv")
    static let rules = directory.appendingPathComponent("places.rules")

    /// The sample's places with their `nearby` counts, as the import computes them.
    static let samplePlaces: [Place] = {
        var places = try! PlaceCSV.parse(String(contentsOf: sample, encoding: .utf8))
        PlaceCSV.countNearby(&places)
        return places
    }()

    /// The case file, decoded.
    static let caseFile: Cases = try! JSONDecoder().decode(Cases.self, from: Data(contentsOf: cases))
}

/// apps/places/cases.json.
struct Cases: Decodable {
    struct GeohashCase: Decodable, CustomStringConvertible {
        var name: String
        var latitude: Double
        var longitude: Double
        var precision: Int
        var hash: String
        var description: String { name }
    }
    struct DecodeCase: Decodable, CustomStringConvertible {
        var hash: String
        var south: Double
        var north: Double
        var west: Double
        var east: Double
        var description: String { hash }
    }
    struct NeighbourCase: Decodable, CustomStringConvertible {
        var hash: String
        var neighbours: [String]
        var description: String { hash }
    }
    struct DistanceCase: Decodable, CustomStringConvertible {
        var name: String
        var from: [Double]
        var to: [Double]
        var km: Double
        var description: String { name }
    }
    struct DirectionCase: Decodable, CustomStringConvertible {
        var heading: Double
        var abbreviation: String
        var japanese: String
        var description: String { "\(heading)°" }
    }
    struct NameKeyCase: Decodable, CustomStringConvertible {
        var name: String
        var key: String
        var description: String { name }
    }
    var geohash: [GeohashCase]
    var decode: [DecodeCase]
    var neighbours: [NeighbourCase]
    var distance: [DistanceCase]
    var direction: [DirectionCase]
    var nameKey: [NameKeyCase]
}
