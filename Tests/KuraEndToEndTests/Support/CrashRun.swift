import Foundation
import KuraTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The crash-consistency run (docs/reliability.md, "Crash consistency"): cycles of a mixed load against a real
/// `kura serve`, a crash at a seeded random moment (`kill -9` of the node; on PostgreSQL also an immediate stop of
/// the database, or both), a restart on the same data, and a check of everything the clients were told.
final class CrashRun {
    enum Engine: String { case sqlite, postgres }
    /// What a cycle kills.
    enum Crash: String { case node, database, both }

    let engine: Engine
    let cycles: Int
    let seed: UInt64
    let clientCount = 4
    /// Documents of `bulk`, the collection the cycles' composite indexes are built over.
    let bulkDocuments: Int
    private var random: SplitMix
    private let root: TemporaryDirectory
    private var node: ServerProcess?
    private var postgres: (url: String, directory: String)?
    private var key = ""
    private var clients: [CrashClient]
    private let listener = CrashListener()
    /// Indexes declared so far: id → (query that it serves, how many documents that query returns).
    private var indexes: [Int: [String: Any]] = [:]
    private var bulkA: [Int: Int] = [:]
    private(set) var figures = CrashFigures()
    private(set) var failures: [String] = []
    private var log: [String] = []

    init(engine: Engine, cycles: Int, seed: UInt64, bulkDocuments: Int = 2000) throws {
        self.engine = engine
        self.cycles = cycles
        self.seed = seed
        self.bulkDocuments = bulkDocuments
        random = SplitMix(state: seed)
        root = try TemporaryDirectory("crash-\(engine.rawValue)")
        clients = (0..<clientCount).map { CrashClient(index: $0, seed: seed) }
    }

    deinit {
        node?.stop()
        if let postgres { try? TestPostgres.stopServer(postgres.directory) }
        // A failed run keeps its data directory and the node's log for a look.
        if failures.isEmpty { root.remove() } else { print("crash[\(engine.rawValue)] kept \(root.path)") }
    }

    private let begun = ContinuousClock.now

    private func say(_ line: String) {
        log.append(line)
        let seconds =
            Double((ContinuousClock.now - begun).components.attoseconds / 10_000_000_000_000_000) / 100
            + Double((ContinuousClock.now - begun).components.seconds)
        print("crash[\(engine.rawValue)] \(String(format: "%7.2f", seconds)) s: \(line)")
    }

    private var serveArguments: [String] {
        var arguments = [
            "--set", "auth.rateLimits=false", "--set", "auth.passwordOpsLimit=1", "--set", "auth.passwordMemLimit=8192",
            "--set", "realtime.maxReplayChanges=10000000",
            // A refresh in doubt at a crash is retried after the restart, however long that took on a loaded machine.
            "--set", "auth.refreshTokenReuseGraceSeconds=3600",
        ]
        if let postgres { arguments += ["--set", "store.engine=postgres", "--set", "store.url=\(postgres.url)"] }
        return arguments
    }

    private func startNode() throws {
        node = try ServerProcess(
            dataDirectory: root.file("data"), logFile: root.file("kura.log"), arguments: serveArguments,
            healthTimeout: .seconds(300))
        key = try String(contentsOfFile: root.file("data") + "/admin.key", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private var port: Int { node!.port }
    private var admin: [(String, String)] {
        [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")]
    }

    private func request(_ method: String, _ target: String, _ body: Any? = nil) throws -> HTTPResponse {
        let connection = try HTTPConnection(port: port, timeout: .seconds(300))
        return try connection.send(method, target, headers: admin, body: body.map(JSON.encode))
    }

    /// Runs every cycle; the failures found are in `failures` (the run stops at the first cycle with any).
    func run() throws {
        let started = ContinuousClock.now
        say("seed \(seed), \(cycles) cycles, \(clientCount) clients, \(bulkDocuments) documents under the indexes")
        if engine == .postgres { postgres = try TestPostgres.startServer() }
        try startNode()
        try seedBulk()
        try listener.connect(port: port, key: key)
        say("seeded; the listener is on")
        for cycle in 0..<cycles {
            try load(cycle: cycle)
            say("cycle \(cycle): restarted")
            try verify(cycle: cycle)
            say("cycle \(cycle): verified")
            guard failures.isEmpty else { break }
        }
        let seconds = (ContinuousClock.now - started).components.seconds
        say(
            "done: \(cycles) cycles in \(seconds) s; \(figures.acknowledgedRequests) acknowledged requests "
                + "(\(figures.acknowledgedWrites) document writes, \(figures.acknowledgedCommits) multi-document "
                + "commits); \(figures.writesChecked) document states checked, \(figures.eventsChecked) listener "
                + "events checked (\(listener.changesApplied) changes, \(listener.resumes) resumes); in flight at a "
                + "crash: \(figures.inFlightApplied) applied, \(figures.inFlightNotApplied) not; "
                + "\(figures.accountsChecked) account checks, \(figures.refreshesChecked) refreshes; "
                + "\(figures.indexesBuilt) indexes built, \(figures.killsDuringIndexBuild) crashes during a build; "
                + "\(figures.nodeKills) node kills, \(figures.databaseKills) database kills")
        if !failures.isEmpty { say("FAILED (seed \(seed)):\n" + failures.joined(separator: "\n")) }
    }

    /// `bulk/b<i>`: `a` is i mod 10, `b`…`e` random, written in commits of 500.
    private func seedBulk() throws {
        var rng = SplitMix(state: seed ^ 0xB01C)
        for start in stride(from: 0, to: bulkDocuments, by: 500) {
            let writes: [[String: Any]] = (start..<min(start + 500, bulkDocuments)).map { i in
                bulkA[i % 10, default: 0] += 1
                return [
                    "op": "set", "path": "bulk/b\(i)",
                    "data": [
                        "a": i % 10, "b": rng.below(1000), "c": rng.below(1000), "d": rng.below(1000),
                        "e": rng.below(1000),
                    ],
                ]
            }
            let response = try request("POST", "/api/commit", ["writes": writes])
            guard response.status == 200 else { throw TestFailure("seeding bulk: \(response.status) \(response.body)") }
        }
    }

    /// The composite indexes the cycles declare, in order, none serving another's query (an index read backwards
    /// serves the reversed order, so only the relative direction of the fields after `a` tells two apart): `a`
    /// then one field ascending (4), then `a` and two fields in the same or opposite directions (24).
    static let indexShapes: [[(field: String, ascending: Bool)]] = {
        let others = ["b", "c", "d", "e"]
        let pairs = others.map { [("a", true), ($0, true)] }
        let triples = others.flatMap { second in
            others.filter { $0 != second }.flatMap { third in
                [[("a", true), (second, true), (third, true)], [("a", true), (second, true), (third, false)]]
            }
        }
        return pairs + triples
    }()

    /// Declares the cycle's composite index over `bulk`; remembers the query it serves.
    private func declareIndex(cycle: Int) throws {
        let shape = Self.indexShapes[cycle % Self.indexShapes.count]
        let fields: [[String: Any]] = shape.map {
            ["fieldPath": $0.field, "order": $0.ascending ? "ASCENDING" : "DESCENDING"]
        }
        let response = try request(
            "POST", "/api/admin/indexes", ["collectionGroup": "bulk", "queryScope": "COLLECTION", "fields": fields])
        guard response.status == 200, let declared = (response.json["indexes"] as? [[String: Any]])?.first,
            let id = declared["id"] as? Int
        else { throw TestFailure("declaring an index: \(response.status) \(response.body)") }
        let value = cycle % 10
        let orderBy = shape.dropFirst().map { ["field": $0.field, "direction": $0.ascending ? "asc" : "desc"] }
        indexes[id] = [
            "collection": "bulk", "where": [["field": "a", "op": "==", "value": value]], "orderBy": orderBy,
            "limit": 1000,
        ]
    }

    /// id → state (with its message, for ERROR).
    private func indexStates() throws -> [Int: String] {
        let response = try request("GET", "/api/admin/indexes")
        var states: [Int: String] = [:]
        for index in response.json["indexes"] as? [[String: Any]] ?? [] {
            guard let id = index["id"] as? Int else { continue }
            states[id] = (index["state"] as? String ?? "?") + ((index["message"] as? String).map { ": \($0)" } ?? "")
        }
        return states
    }

    /// One cycle's load and crash.
    private func load(cycle: Int) throws {
        let crash: Crash =
            engine == .sqlite
            ? .node : cycle < 3 ? [Crash.node, .both, .database][cycle] : random.pick([.node, .database, .both])
        let delay = 500 + random.below(2500)
        // The cycle's index is declared a little before the crash, so that its build is usually under way then.
        let indexLead = 50 + random.below(400)
        let stop = Shared(false)
        let group = DispatchGroup()
        let port = self.port
        let key = self.key
        for client in clients {
            group.enter()
            Thread {
                client.run(port: port, key: key, stop: stop)
                group.leave()
            }.start()
        }
        let listenerDone = DispatchGroup()
        listenerDone.enter()
        let listener = self.listener
        Thread {
            listener.run(stop: stop)
            listenerDone.leave()
        }.start()
        usleep(UInt32(delay - indexLead) * 1000)
        try declareIndex(cycle: cycle)
        usleep(UInt32(indexLead) * 1000)
        let building = (try? indexStates())?.values.contains("CREATING") ?? false
        if building { figures.killsDuringIndexBuild += 1 }
        say(
            "cycle \(cycle): kill (\(crash.rawValue)) after \(delay) ms, \(indexLead) ms after declaring an index\(building ? ", an index build under way" : "")"
        )
        if crash != .database {
            node!.kill9()
            figures.nodeKills += 1
        }
        if crash != .node, let postgres {
            try TestPostgres.killServer(postgres.directory)
            figures.databaseKills += 1
        }
        // The clients stop at their first failed request; a database crash leaves the node up to answer them.
        guard group.wait(timeout: .now() + 600) == .success else { throw TestFailure("the clients did not stop") }
        stop.withLock { $0 = true }
        listenerDone.wait()
        if crash != .node, let postgres { try TestPostgres.restartServer(postgres.directory, url: postgres.url) }
        if crash == .database {
            try waitForWrites()
        } else {
            try startNode()
        }
    }

    /// After the database restarted under a live node: waits until a write goes through again.
    private func waitForWrites() throws {
        let deadline = ContinuousClock.now + .seconds(300)
        var last = ""
        while ContinuousClock.now < deadline {
            if let response = try? request("PUT", "/api/docs/probe/p", ["data": ["at": "\(ContinuousClock.now)"]]) {
                if response.status == 200 { return }
                last = "\(response.status) \(response.body.prefix(200))"
            }
            usleep(100_000)
        }
        throw TestFailure("the node accepts no write 300 s after its database restarted; last answer \(last)")
    }

    /// Every document of `items` as stored now.
    private func readItems() throws -> [String: CrashDocument] {
        var documents: [String: CrashDocument] = [:]
        var token: String?
        repeat {
            var target = "/api/docs/items?limit=1000"
            if let token {
                target += "&pageToken=" + (token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token)
            }
            let response = try request("GET", target)
            guard response.status == 200 else {
                throw TestFailure("listing items: \(response.status) \(response.body)")
            }
            for document in response.json["documents"] as? [[String: Any]] ?? [] {
                if let path = document["path"] as? String { documents[path] = CrashDocument(observed: document) }
            }
            token = response.json["nextPageToken"] as? String
        } while token != nil
        return documents
    }

    private func fail(_ cycle: Int, _ message: String) { failures.append("cycle \(cycle): \(message)") }

    /// The checks after a restart.
    private func verify(cycle: Int) throws {
        let stored = try readItems()
        for client in clients {
            for failure in client.failures { fail(cycle, failure) }
            client.failures = []
            verifyDocuments(client, stored, cycle)
        }
        // The listener resumes and must describe the same collection, every change it was owed delivered.
        try listener.catchUp(to: stored.mapValues(\.version), port: port, key: key)
        for failure in listener.failures { fail(cycle, "listener: \(failure)") }
        for client in clients {
            for event in client.expectedEvents where !listener.seen.contains(event) {
                fail(cycle, "the listener never delivered \(event)")
            }
            figures.eventsChecked += client.expectedEvents.count
            client.expectedEvents = []
            try verifyAccounts(client, cycle)
        }
        say("cycle \(cycle): documents, listener and accounts checked")
        try verifyIndexes(cycle)
        for client in clients {
            figures.acknowledgedRequests += client.figures.acknowledgedRequests
            figures.acknowledgedWrites += client.figures.acknowledgedWrites
            figures.acknowledgedCommits += client.figures.acknowledgedCommits
            client.figures = CrashFigures()
        }
    }

    /// Every document of the client is as acknowledged; a write in flight at the crash is there whole or not at all.
    private func verifyDocuments(_ client: CrashClient, _ stored: [String: CrashDocument], _ cycle: Int) {
        var inFlight: [String: CrashDocument] = [:]
        var label = ""
        if case .writes(_, let what, let after) = client.pending {
            inFlight = after
            label = what
            client.pending = nil
        }
        let paths = Set(client.documents.keys).union(inFlight.keys).union(
            stored.keys.filter { $0.hasPrefix(client.prefix) })
        var acknowledgedVersions: [String: Int] = [:]
        var applied: [String] = []
        var notApplied: [String] = []
        for path in paths.sorted() {
            let acknowledged = client.documents[path] ?? .absent
            let observed = stored[path] ?? .absent
            if let after = inFlight[path] {
                if after.matches(observed) {
                    applied.append(path)
                } else if acknowledged.matches(observed) {
                    notApplied.append(path)
                } else {
                    fail(
                        cycle,
                        "\(path): neither as acknowledged (\(acknowledged)) nor as the write in flight left it "
                            + "(\(after)): \(observed)")
                }
            } else {
                if client.documents[path] != nil { figures.writesChecked += 1 }
                if !acknowledged.matches(observed) {
                    fail(cycle, "\(path): acknowledged \(acknowledged), stored \(observed)")
                }
            }
            acknowledgedVersions[path] = acknowledged.version
            client.documents[path] = observed
        }
        if !applied.isEmpty && !notApplied.isEmpty {
            fail(cycle, "partial commit: \(label) applied to \(applied) but not to \(notApplied)")
        } else if !applied.isEmpty {
            figures.inFlightApplied += 1
            for path in applied {
                // The listener owes this change too.
                let after = inFlight[path]!
                client.expectedEvents.append(
                    CrashEvent(
                        path: path, version: after.exists ? after.version : acknowledgedVersions[path]!,
                        removed: !after.exists))
            }
        } else if !inFlight.isEmpty {
            figures.inFlightNotApplied += 1
        }
    }

    private func auth(_ path: String, _ body: [String: Any], bearer: String? = nil) throws -> HTTPResponse {
        let connection = try HTTPConnection(port: port, timeout: .seconds(300))
        var headers = [("Content-Type", "application/json")]
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        return try connection.send(
            bearer == nil ? "POST" : "GET", path, headers: headers, body: bearer == nil ? JSON.encode(body) : nil)
    }

    /// Acknowledged sign-ups sign in, their last ID token is still good and their last refresh token refreshes.
    private func verifyAccounts(_ client: CrashClient, _ cycle: Int) throws {
        switch client.pending {
        case .signUp(let email, let password):
            let response = try auth("/api/auth/signin", ["email": email, "password": password])
            if response.status == 200, let account = CrashClient.account(response, email: email, password: password) {
                client.accounts.append(account)
                figures.inFlightApplied += 1
            } else if response.errorCode == "INVALID_LOGIN_CREDENTIALS" {
                figures.inFlightNotApplied += 1
            } else {
                fail(cycle, "sign-in of \(email), signed up as the server died: \(response.status) \(response.body)")
            }
        case .refresh(let index, let token):
            // The refresh may have been applied; retrying the spent token within the grace period works once.
            let response = try auth("/api/auth/refresh", ["refreshToken": token])
            if response.status == 200, let idToken = response.json["idToken"] as? String,
                let refreshToken = response.json["refreshToken"] as? String
            {
                client.accounts[index].idToken = idToken
                client.accounts[index].refreshToken = refreshToken
            } else {
                fail(
                    cycle,
                    "retrying the refresh in flight for \(client.accounts[index].email): \(response.status) \(response.body)"
                )
            }
        default: break
        }
        client.pending = nil
        for index in client.accounts.indices {
            let account = client.accounts[index]
            let me = try auth("/api/auth/me", [:], bearer: account.idToken)
            if me.status != 200 { fail(cycle, "the last ID token of \(account.email): \(me.status) \(me.body)") }
            let refreshed = try auth("/api/auth/refresh", ["refreshToken": account.refreshToken])
            if refreshed.status == 200, let idToken = refreshed.json["idToken"] as? String,
                let refreshToken = refreshed.json["refreshToken"] as? String
            {
                client.accounts[index].idToken = idToken
                client.accounts[index].refreshToken = refreshToken
                figures.refreshesChecked += 1
            } else {
                fail(cycle, "the last refresh token of \(account.email): \(refreshed.status) \(refreshed.body)")
            }
            let signIn = try auth("/api/auth/signin", ["email": account.email, "password": account.password])
            if signIn.status != 200 { fail(cycle, "sign-in of \(account.email): \(signIn.status) \(signIn.body)") }
            figures.accountsChecked += 1
        }
    }

    /// No index build failed; every index READY answers its query from the index with every document. At the end
    /// of the run, waits until every index is READY: on PostgreSQL a build whose node was killed resumes once the
    /// dead node's lease on it runs out (30 s), so waiting in every cycle would mostly measure that lease.
    private func verifyIndexes(_ cycle: Int) throws {
        let deadline = ContinuousClock.now + .seconds(600)
        var states = try indexStates()
        while cycle == cycles - 1 && states.values.contains("CREATING") {
            guard ContinuousClock.now < deadline else {
                fail(cycle, "indexes still building 600 s after the restart: \(states)")
                return
            }
            usleep(100_000)
            states = try indexStates()
        }
        var ready = 0
        for (id, query) in indexes.sorted(by: { $0.key < $1.key }) {
            guard let state = states[id], state == "READY" || state == "CREATING" else {
                fail(cycle, "index \(id) is \(states[id] ?? "gone") after the restart")
                continue
            }
            guard state == "READY" else { continue }
            ready += 1
            let explained = try request("POST", "/api/query?explain=true", query)
            let explain = explained.json["explain"] as? [String: Any] ?? [:]
            let value = ((query["where"] as! [[String: Any]])[0]["value"] as! Int)
            if explain["compositeIndexId"] as? Int != id || explain["rowsReturned"] as? Int != bulkA[value] {
                fail(cycle, "index \(id) for \(query): \(explained.status) \(explained.body.prefix(400))")
            }
        }
        figures.indexesBuilt = ready
    }
}
