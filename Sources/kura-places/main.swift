import Foundation
import KuraClient
import KuraPlaces
import Synchronization

// kura-places: "where am I" in a terminal. Reverse geocoding, name search and compass directions on the GeoNames
// places imported into Kura's `places` collection (apps/places/README.md); argument parsing and output only, the
// logic is KuraPlaces.

let attribution = "Place data: GeoNames (geonames.org), CC BY 4.0"

let usage = """
    usage: kura-places [--server URL] COMMAND [ARGUMENTS] [--json]
      reverse LAT LON         the nearest place to a point: country, admin1, admin2, city, distance
      search NAME...          places whose name starts with NAME (case and accents ignored)
      heading DEGREES         the compass direction of a heading (8 points, English and Japanese)
      import FILE             import rg_cities1000.csv (or the sample) into Kura; needs an admin account
      bench [--points N]      reverse-geocode N random points (default 200) and print the times
    `kura-places COMMAND --help` describes one command. The server defaults to $KURA_SERVER or
    http://127.0.0.1:8090. \(attribution).
    """

let help: [String: String] = [
    "reverse": """
    usage: kura-places reverse LAT LON [--json]
    The nearest place in Kura's `places` collection to latitude LAT (−90…90, north positive) and longitude LON
    (−180…180, east positive), by great-circle distance: country code, admin1 (prefecture, state), admin2
    (county), city, the distance in km and its coordinates. Example: kura-places reverse 35.6812 139.7671
    """,
    "search": """
    usage: kura-places search NAME... [--limit N] [--json]
    Places whose name starts with NAME, case- and accent-insensitive (`zurich` finds Zürich), exact names first,
    then places with more neighbours within 25 km (a stand-in for population). N defaults to 10 (1…50).
    """,
    "heading": """
    usage: kura-places heading DEGREES [--json]
    The 8-point compass direction of a heading in degrees clockwise from north: each point covers ±22.5° around
    it, a boundary belongs to the next point clockwise (22.5 is NE), any angle is taken modulo 360 (−90 is W,
    360 is N). Needs no server.
    """,
    "import": """
    usage: kura-places import FILE [--email ADDRESS --password PASSWORD] [--json]
    Imports a GeoNames CSV (lat,lon,name,admin1,admin2,cc) into `places`, signed in as a user with the admin
    claim (`kura admin create-user --admin`); the account also comes from $KURA_PLACES_EMAIL and
    $KURA_PLACES_PASSWORD. Idempotent: document IDs come from the rows, and only missing or changed documents are
    written; progress goes to standard error.
    """,
    "bench": """
    usage: kura-places bench [--points N] [--seed S] [--trace FILE] [--json]
    Reverse-geocodes N random points spread evenly over the globe (default 200, seed 1), one after another, and
    prints the median and 95th percentile of the time per lookup as this client sees it, the queries per lookup,
    and `p50_ms=…` last. --trace writes one line per lookup: the point, the queries of each round
    (`rounds=9,16,3`) and the time, for bench/places.sh to match with the server's access log.
    """,
]

func say(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }
func complain(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }

struct UsageError: Error { let message: String }

/// Options and positional arguments of one command.
struct CommandLineArguments {
    var server = ProcessInfo.processInfo.environment["KURA_SERVER"] ?? "http://127.0.0.1:8090"
    var json = false
    var help = false
    var options: [String: String] = [:]
    var positional: [String] = []

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--json": json = true
            case "--help", "-h": help = true
            case "--server", "--limit", "--email", "--password", "--points", "--seed", "--trace":
                guard let value = rest.popFirst() else { throw UsageError(message: "\(argument) needs a value") }
                if argument == "--server" { server = value } else { options[argument] = value }
            default:
                // A negative number is an argument (a longitude west, a heading), not an option.
                if argument.hasPrefix("--") || (argument.hasPrefix("-") && Double(argument) == nil) {
                    throw UsageError(message: "unknown option \(argument)")
                }
                positional.append(argument)
            }
        }
    }

    func kura() throws -> Kura {
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https" else {
            throw UsageError(message: "--server must be an http(s) URL")
        }
        return Kura(url: url, settings: .init(session: .memory))
    }

    func integer(_ option: String, default value: Int, _ range: ClosedRange<Int>) throws -> Int {
        guard let text = options[option] else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(message: "\(option) must be an integer in \(range.lowerBound)…\(range.upperBound)")
        }
        return number
    }
}

func jsonText(_ value: Any) -> String {
    let data = try! JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
    return String(decoding: data, as: UTF8.self) + "\n"
}

func placeJSON(_ place: Place) -> [String: Any] {
    [
        "id": place.id, "name": place.name, "admin1": place.admin1, "admin2": place.admin2,
        "countryCode": place.countryCode, "latitude": place.coordinate.latitude,
        "longitude": place.coordinate.longitude, "nearby": place.nearby,
    ]
}

func directionJSON(_ heading: Double, _ direction: CompassDirection) -> [String: Any] {
    [
        "heading": heading, "normalized": CompassDirection.normalize(heading)!, "abbreviation": direction.abbreviation,
        "english": direction.englishName, "japanese": direction.japaneseName,
    ]
}

func run(_ command: String, _ arguments: CommandLineArguments) async throws {
    switch command {
    case "heading":
        guard arguments.positional.count == 1, let heading = Double(arguments.positional[0]) else {
            throw UsageError(message: "heading takes one number of degrees")
        }
        guard let direction = CompassDirection(heading: heading) else {
            throw UsageError(message: "the heading must be a finite number")
        }
        if arguments.json {
            say(jsonText(directionJSON(heading, direction)))
        } else {
            say("\(direction.abbreviation)  \(direction.japaneseName)  \(direction.englishName)\n")
        }

    case "reverse":
        guard arguments.positional.count == 2, let latitude = Double(arguments.positional[0]),
            let longitude = Double(arguments.positional[1])
        else { throw UsageError(message: "reverse takes a latitude and a longitude in degrees") }
        guard let point = Coordinate(validLatitude: latitude, longitude: longitude) else {
            throw UsageError(message: "latitude must be in −90…90 and longitude in −180…180")
        }
        let started = Date()
        let (found, statistics) = try await NearestPlaceSearch(source: KuraPlaceSource(kura: try arguments.kura()))
            .nearest(to: point)
        let milliseconds = Date().timeIntervalSince(started) * 1000
        guard let found else { throw UsageError(message: "no places in Kura; run `kura-places import` first") }
        let place = found.place
        if arguments.json {
            say(
                jsonText([
                    "point": ["latitude": latitude, "longitude": longitude], "place": placeJSON(place),
                    "distanceKm": (found.distance * 1000).rounded() / 1000, "queries": statistics.queries,
                    "rounds": statistics.rounds, "milliseconds": milliseconds, "attribution": attribution,
                ]))
        } else {
            say(
                """
                country      \(place.countryCode)
                admin1       \(place.admin1.isEmpty ? "-" : place.admin1)
                admin2       \(place.admin2.isEmpty ? "-" : place.admin2)
                city         \(place.name)
                distance     \(String(format: "%.1f", found.distance)) km
                place at     \(place.coordinate)
                your point   \(point)
                \(attribution)

                """)
        }

    case "search":
        let text = arguments.positional.joined(separator: " ")
        guard !PlaceName.key(text).isEmpty else { throw UsageError(message: "search needs a name") }
        let limit = try arguments.integer("--limit", default: 10, 1...50)
        let places = try await PlaceNameSearch(source: KuraPlaceSource(kura: try arguments.kura()))
            .search(text, limit: limit)
        if arguments.json {
            say(jsonText(["query": text, "places": places.map(placeJSON), "attribution": attribution]))
        } else if places.isEmpty {
            say("no place starts with \"\(text)\"\n")
        } else {
            for place in places {
                say("\(place.label)  \(place.coordinate)\n")
            }
            say("\(attribution)\n")
        }

    case "import":
        guard arguments.positional.count == 1 else { throw UsageError(message: "import takes one CSV file") }
        let environment = ProcessInfo.processInfo.environment
        guard let email = arguments.options["--email"] ?? environment["KURA_PLACES_EMAIL"],
            let password = arguments.options["--password"] ?? environment["KURA_PLACES_PASSWORD"]
        else { throw UsageError(message: "import needs an admin account: --email and --password") }
        let text: String
        do {
            text = try String(contentsOfFile: arguments.positional[0], encoding: .utf8)
        } catch {
            throw UsageError(message: "cannot read \(arguments.positional[0]): \(error.localizedDescription)")
        }
        var skipped: [PlaceCSV.RowError] = []
        var places = try PlaceCSV.parse(text, skipped: &skipped)
        for row in skipped { complain("import: left out \(row)\n") }
        complain("import: \(places.count) places in \(arguments.positional[0]); counting neighbours\n")
        PlaceCSV.countNearby(&places)
        let kura = try arguments.kura()
        _ = try await kura.auth.signIn(withEmail: email, password: password)
        let started = Date()
        let lastShown = LockedCounter()
        let progress = try await PlaceImport(kura: kura).run(places) { progress in
            // A line per 5 % (and the first and last), so that a log file gets a readable record too.
            let step = max(progress.total / 20, 1)
            guard lastShown.advance(to: progress.checked / step) || progress.checked == progress.total else {
                return
            }
            complain(
                "import: \(progress.checked)/\(progress.total) checked, \(progress.written) written, "
                    + "\(progress.unchanged) unchanged\n")
        }
        let seconds = Date().timeIntervalSince(started)
        if arguments.json {
            say(
                jsonText([
                    "places": progress.total, "written": progress.written, "unchanged": progress.unchanged,
                    "existingBefore": progress.existing, "seconds": seconds,
                ]))
        } else {
            say(
                "imported \(progress.total) places: \(progress.written) written, \(progress.unchanged) unchanged "
                    + "(\(String(format: "%.1f", seconds)) s)\n")
        }

    case "bench":
        let count = try arguments.integer("--points", default: 200, 1...100_000)
        var generator = SplitMix(seed: UInt64(try arguments.integer("--seed", default: 1, 0...Int(Int32.max))))
        let search = NearestPlaceSearch(source: KuraPlaceSource(kura: try arguments.kura()))
        var times: [Double] = []
        var queries: [Int] = []
        var trace = ""
        for _ in 0..<count {
            // Uniform over the sphere: latitude from the arcsine of a uniform number.
            let latitude = asin(2 * generator.unit() - 1) * 180 / .pi
            let longitude = generator.unit() * 360 - 180
            let started = Date()
            let (_, statistics) = try await search.nearest(to: Coordinate(latitude: latitude, longitude: longitude))
            times.append(Date().timeIntervalSince(started) * 1000)
            queries.append(statistics.queries)
            trace +=
                String(format: "%.5f %.5f ", latitude, longitude)
                + "rounds=\(statistics.roundSizes.map(String.init).joined(separator: ",")) "
                + String(format: "ms=%.3f\n", times.last!)
        }
        if let path = arguments.options["--trace"] {
            try Data(trace.utf8).write(to: URL(fileURLWithPath: path))
        }
        let sorted = times.sorted()
        let p50 = sorted[sorted.count / 2]
        let p95 = sorted[min(sorted.count - 1, sorted.count * 95 / 100)]
        let meanQueries = Double(queries.reduce(0, +)) / Double(queries.count)
        if arguments.json {
            say(jsonText(["points": count, "p50_ms": p50, "p95_ms": p95, "queries_mean": meanQueries]))
        } else {
            say(
                String(
                    format: "points=%d queries_mean=%.1f queries_max=%d p95_ms=%.2f\np50_ms=%.2f\n", count,
                    meanQueries, queries.max() ?? 0, p95, p50))
        }

    default:
        throw UsageError(message: "unknown command \(command)")
    }
}

/// The last step reached, shared with the progress callback.
final class LockedCounter: Sendable {
    private let value = Mutex(-1)
    /// True when `step` is past the last one seen.
    func advance(to step: Int) -> Bool {
        value.withLock { value in
            guard step > value else { return false }
            value = step
            return true
        }
    }
}

/// A small seeded generator, so bench runs pick the same points.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A double in 0 ..< 1.
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// The index of the command: the first argument that is neither an option nor an option's value.
func commandIndex(_ arguments: [String]) -> Int? {
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        if ["--server", "--limit", "--email", "--password", "--points", "--seed", "--trace"].contains(argument) {
            index += 2
        } else if argument.hasPrefix("-") {
            index += 1
        } else {
            return index
        }
    }
    return nil
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let index = commandIndex(arguments) else {
    let asked = arguments.contains("--help") || arguments.contains("-h")
    (asked ? say : complain)(usage + "\n")
    exit(asked ? 0 : 2)
}
let command = arguments.remove(at: index)
do {
    let parsed = try CommandLineArguments(arguments)
    if parsed.help {
        guard let text = help[command] else { throw UsageError(message: "unknown command \(command)") }
        say(text + "\n")
        exit(0)
    }
    try await run(command, parsed)
} catch let error as UsageError {
    complain("kura-places: \(error.message)\n\n\(usage)\n")
    exit(2)
} catch let error as PlaceCSV.RowError {
    complain("kura-places: the file is not a GeoNames CSV: \(error)\n")
    exit(1)
} catch let error as KuraError {
    complain("kura-places: \(error.code): \(error.message)\n")
    exit(1)
} catch {
    complain("kura-places: \(error)\n")
    exit(1)
}
