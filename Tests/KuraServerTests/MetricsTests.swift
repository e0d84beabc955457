import Foundation
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// `GET /metrics` over a real socket: the exposition parses as Prometheus text, counters move, routes are labelled
/// by template (a client cannot mint labels), the guard refuses with JSON errors, histograms are cumulative.
@Suite struct MetricsTests {
    static let token = "scrape-token-0123456789"

    static func configure(_ configuration: inout KuraConfiguration) throws {
        try configuration.set("metrics.token", token)
        try configuration.set("metrics.node", "node-a")
    }

    /// Scrapes with the metrics token; requires a 200 that parses.
    static func scrape(_ server: TestKura) throws -> Exposition {
        let response = try server.request("GET", "/metrics", auth: .header("Bearer \(token)"))
        #expect(response.status == 200, "\(response)")
        #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        return try Exposition(parsing: response.body)
    }

    @Test("the exposition parses: HELP and TYPE before every family, counters end in _total, every sample labelled")
    func parses() throws {
        try withTestKura(configure: Self.configure) { server in
            _ = try server.request("GET", "/api/health", auth: .none)
            let metrics = try Self.scrape(server)
            #expect(metrics.types["kura_http_requests_total"] == "counter")
            #expect(metrics.types["kura_http_request_duration_seconds"] == "histogram")
            #expect(metrics.types["kura_store_commit_duration_seconds"] == "histogram")
            for (name, type) in metrics.types where type == "counter" { #expect(name.hasSuffix("_total"), "\(name)") }
            for name in [
                "kura_http_open_connections", "kura_worker_pool_queued", "kura_realtime_streams",
                "kura_realtime_targets",
                "kura_change_log_sequence", "kura_store_size_bytes", "kura_process_resident_memory_bytes",
                "kura_process_open_fds", "kura_auth_sign_ins_total", "kura_auth_rate_limited_total", "kura_mail_total",
            ] {
                #expect(metrics.types[name] != nil, "\(name) missing")
            }
            let info = try #require(metrics.samples("kura_build_info").first)
            #expect(info.labels["version"] == KuraNode.version)
            #expect(info.labels["engine"] == "sqlite")
            #expect(metrics.samples.allSatisfy { $0.labels["kura_node"] == "node-a" })
            #expect((metrics.value("kura_store_size_bytes") ?? 0) > 0)
            #expect((metrics.value("kura_process_open_fds") ?? 0) > 0)
            #expect((metrics.value("kura_http_open_connections") ?? 0) >= 1)
        }
    }

    @Test("counters move with requests, commits and sign-ins")
    func countersMove() throws {
        try withAuthKura(configure: Self.configure) { server in
            let before = try Self.scrape(server)
            let health = ["method": "GET", "route": "/api/health", "code": "200"]
            for _ in 0..<3 { _ = try server.request("GET", "/api/health", auth: .none) }
            try server.put("todos/a", ["n": 1])
            _ = try server.signUp("ann@example.com")
            _ = try server.signInResponse("ann@example.com", "wrong-password")
            let after = try Self.scrape(server)
            #expect(
                after.value("kura_http_requests_total", health)
                    == (before.value("kura_http_requests_total", health) ?? 0) + 3)
            let commits = after.value("kura_store_commit_duration_seconds_count") ?? 0
            #expect(commits > (before.value("kura_store_commit_duration_seconds_count") ?? 0))
            #expect((after.value("kura_change_log_sequence") ?? 0) > (before.value("kura_change_log_sequence") ?? 0))
            let failures = ["outcome": "failure"]
            #expect(
                after.value("kura_auth_sign_ins_total", failures)
                    == (before.value("kura_auth_sign_ins_total", failures) ?? 0) + 1)
            let latency = ["method": "GET", "route": "/api/health"]
            #expect((after.value("kura_http_request_duration_seconds_count", latency) ?? 0) >= 3)
        }
    }

    @Test("requests are labelled by route template, and every unknown path by one label")
    func routeTemplates() throws {
        try withTestKura(configure: Self.configure) { server in
            try server.put("todos/a", ["n": 1])
            _ = try server.request("GET", "/api/docs/todos/a")
            _ = try server.request("GET", "/api/docs/todos/b")
            for index in 0..<5 { _ = try server.request("GET", "/nope-\(index)/x", auth: .none) }
            _ = try server.request("BREW", "/pot-\(UUID().uuidString)", auth: .none)
            let metrics = try Self.scrape(server)
            let requests = metrics.samples("kura_http_requests_total")
            let routes = Set(requests.compactMap { $0.labels["route"] })
            #expect(!routes.contains { $0.contains("todos") || $0.contains("nope") || $0.contains("pot") })
            #expect(routes.allSatisfy { $0.hasPrefix("/") || $0.hasPrefix("(") }, "\(routes)")
            let docs = requests.filter {
                $0.labels["method"] == "GET" && $0.labels["route"]?.hasPrefix("/api/docs/") == true
            }
            #expect(docs.compactMap { $0.labels["code"] }.sorted() == ["200", "404"], "\(docs)")
            let unmatched = requests.filter { $0.labels["route"] == "(unmatched)" && $0.labels["method"] == "GET" }
            #expect(unmatched.count == 1)
            #expect(unmatched.first?.value == 5)
            #expect(unmatched.first?.labels["code"] == "404")
            // The parser refuses a method it does not know before routing: one label whatever the method was.
            let other = requests.filter { $0.labels["route"] == "(rejected)" && $0.labels["method"] == "OTHER" }
            #expect(other.count == 1, "an unknown method counts as OTHER: \(requests)")
        }
    }

    @Test("the guard: the metrics token and administrators pass; others get the admin endpoints' refusals")
    func guardRefusals() throws {
        try withAuthKura(configure: Self.configure) { server in
            let none = try server.request("GET", "/metrics", auth: .none)
            #expect(none.status == 401)
            #expect(none.errorCode == "UNAUTHENTICATED")
            let basic = try server.request("GET", "/metrics", auth: .header("Basic dXNlcjpwYXNz"))
            #expect(basic.status == 401)
            #expect(basic.errorCode == "UNAUTHENTICATED")
            let wrong = try server.request("GET", "/metrics", auth: .header("Bearer scrape-token-0123456780"))
            #expect(wrong.status == 401)
            #expect(wrong.errorCode == "INVALID_ID_TOKEN")
            let user = try server.signUp("bob@example.com")
            let asUser = try server.request("GET", "/metrics", auth: user.bearer)
            #expect(asUser.status == 403)
            #expect(asUser.errorCode == "PERMISSION_DENIED")
            let admin = try server.signUpAdmin("root@example.com")
            #expect(try server.request("GET", "/metrics", auth: admin.bearer).status == 200)
            #expect(try server.request("GET", "/metrics").status == 200)
            #expect(try server.request("GET", "/metrics", auth: .header("Bearer \(Self.token)")).status == 200)
        }
    }

    @Test("metrics.enabled off: /metrics is an unknown path, even for the admin key")
    func disabled() throws {
        try withTestKura(configure: { try $0.set("metrics.enabled", "false") }) { server in
            let response = try server.request("GET", "/metrics")
            #expect(response.status == 404)
            #expect(response.errorCode == "NOT_FOUND")
        }
    }

    @Test("a metrics token shorter than 16 characters is refused at start-up")
    func shortToken() throws {
        var configuration = KuraConfiguration()
        #expect(throws: ConfigurationError.self) { try configuration.set("metrics.token", "short") }
    }

    @Test("histogram buckets are cumulative, in ascending le, ending in +Inf equal to _count")
    func cumulativeBuckets() throws {
        try withTestKura(configure: Self.configure) { server in
            for index in 0..<4 { try server.put("todos/t\(index)", ["n": index]) }
            for _ in 0..<5 { _ = try server.request("GET", "/api/health", auth: .none) }
            let metrics = try Self.scrape(server)
            let series = Dictionary(
                grouping: metrics.samples.filter { $0.name.hasSuffix("_bucket") },
                by: { sample in
                    sample.name + sample.labels.filter { $0.key != "le" }.sorted { $0.key < $1.key }.description
                })
            #expect(!series.isEmpty)
            for (_, buckets) in series {
                let bounds = buckets.map { $0.labels["le"] == "+Inf" ? Double.infinity : Double($0.labels["le"]!)! }
                #expect(bounds == bounds.sorted(), "le ascending")
                #expect(bounds.last == .infinity)
                let counts = buckets.map(\.value)
                #expect(counts == counts.sorted(), "cumulative: \(counts)")
                let name = String(buckets[0].name.dropLast("_bucket".count))
                var labels = buckets[0].labels
                labels["le"] = nil
                #expect(metrics.value(name + "_count", labels) == counts.last)
            }
            let commits = metrics.value("kura_store_commit_duration_seconds_count") ?? 0
            #expect(commits >= 4)
        }
    }
}

/// A small parser of the Prometheus text format (0.0.4), strict enough to catch malformed output: comments are
/// `# HELP` or `# TYPE`; a sample is `name{label="value",…} number`, its family declared before it.
struct Exposition {
    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    struct Malformed: Error, CustomStringConvertible {
        let line: String
        let why: String
        var description: String { "\(why): \(line)" }
    }

    var types: [String: String] = [:]
    var helps: [String: String] = [:]
    var samples: [Sample] = []

    init(parsing text: String) throws {
        #expect(text.hasSuffix("\n"))
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let line = String(line)
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3).map(String.init)
                guard parts.count >= 3, ["HELP", "TYPE"].contains(parts[1]) else {
                    throw Malformed(line: line, why: "unknown comment")
                }
                if parts[1] == "TYPE" {
                    guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3])
                    else { throw Malformed(line: line, why: "bad TYPE") }
                    guard types[parts[2]] == nil else { throw Malformed(line: line, why: "family declared twice") }
                    guard helps[parts[2]] != nil else { throw Malformed(line: line, why: "TYPE before HELP") }
                    types[parts[2]] = parts[3]
                } else {
                    helps[parts[2]] = parts.count == 4 ? parts[3] : ""
                }
                continue
            }
            samples.append(try Self.sample(line))
            let name = samples.last!.name
            guard family(of: name) != nil else { throw Malformed(line: line, why: "sample before its TYPE") }
        }
    }

    /// The declared family a sample name belongs to (a histogram's `_bucket`, `_sum`, `_count` are its own).
    func family(of name: String) -> String? {
        if types[name] != nil { return name }
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if types[base] == "histogram" { return base }
        }
        return nil
    }

    static func sample(_ line: String) throws -> Sample {
        var characters = Substring(line)
        let name = characters.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
        guard !name.isEmpty, !name.first!.isNumber else { throw Malformed(line: line, why: "bad metric name") }
        characters = characters.dropFirst(name.count)
        var labels: [String: String] = [:]
        if characters.first == "{" {
            characters = characters.dropFirst()
            while characters.first != "}" {
                let label = characters.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                guard !label.isEmpty, characters.dropFirst(label.count).hasPrefix("=\"") else {
                    throw Malformed(line: line, why: "bad label")
                }
                characters = characters.dropFirst(label.count + 2)
                var value = ""
                while let character = characters.first, character != "\"" {
                    characters = characters.dropFirst()
                    if character == "\\" {
                        guard let escaped = characters.first else { throw Malformed(line: line, why: "bad escape") }
                        characters = characters.dropFirst()
                        switch escaped {
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        case "n": value.append("\n")
                        default: throw Malformed(line: line, why: "bad escape")
                        }
                    } else {
                        value.append(character)
                    }
                }
                guard characters.first == "\"" else { throw Malformed(line: line, why: "unterminated value") }
                characters = characters.dropFirst()
                guard labels.updateValue(value, forKey: String(label)) == nil else {
                    throw Malformed(line: line, why: "label given twice")
                }
                if characters.first == "," { characters = characters.dropFirst() }
            }
            characters = characters.dropFirst()
        }
        guard characters.first == " " else { throw Malformed(line: line, why: "no space before the value") }
        let text = characters.dropFirst()
        let value: Double? =
            switch text {
            case "+Inf": .infinity
            case "-Inf": -.infinity
            case "NaN": .nan
            default: Double(text)
            }
        guard let value else { throw Malformed(line: line, why: "bad value") }
        return Sample(name: String(name), labels: labels, value: value)
    }

    func samples(_ name: String) -> [Sample] { samples.filter { $0.name == name } }

    /// The value of the one sample called `name` whose labels include `labels`.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = samples.filter { sample in
            sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
        }
        return matching.count == 1 ? matching[0].value : nil
    }
}

extension ClusterNodeTests {
    @Test("/metrics on PostgreSQL: each node labels its samples with its own kura_node; the size is the database's")
    func metricsPerNode() throws {
        try Self.withTwoNodes { a, b, _ in
            try a.put("todos/a", ["n": 1])
            let first = try Exposition(parsing: try a.request("GET", "/metrics").body)
            let second = try Exposition(parsing: try b.request("GET", "/metrics").body)
            let nodeA = try #require(first.samples("kura_build_info").first?.labels["kura_node"])
            let nodeB = try #require(second.samples("kura_build_info").first?.labels["kura_node"])
            #expect(nodeA != nodeB)
            #expect(first.samples("kura_build_info").first?.labels["engine"] == "postgres")
            #expect((first.value("kura_store_size_bytes") ?? 0) > 0)
            // Both read the one database's change log.
            #expect(first.value("kura_change_log_sequence") == second.value("kura_change_log_sequence"))
            #expect((first.value("kura_store_commit_duration_seconds_count") ?? 0) >= 1)
            #expect(second.value("kura_store_commit_duration_seconds_count") == 0)
        }
    }
}
