import Foundation
import KuraCore
import KuraModel
import KuraPostgres
import KuraStore
import Synchronization

/// The `composite_catalog` version this node's catalog reflects.
struct CatalogState {
    var version: Int64 = -1
    /// Monotonic seconds of the last check by a query.
    var checked: Double = 0
    /// Monotonic seconds of the last check of the planner statistics' age (`refreshStatisticsIfStale`).
    var statisticsChecked: Double = 0
    /// Whether an `ANALYZE` of this store's tables is queued or running.
    var analyzing = false
    /// The builds this node runs, or watches while another node runs them (to take over if that node stops).
    var builds: Set<Int64> = []
    /// The builds among them that another node holds now (each reported once).
    var buildsElsewhere: Set<Int64> = []
    /// This store's name in `composite_indexes.build_owner`.
    let builder = SecureRandom.hex(8)
}

/// What one build step did.
enum BuildStep {
    /// It indexed `scanned` documents; `done` when they were the last.
    case built(scanned: Int64, done: Bool)
    /// Another node holds the build: its lease runs, or its step is running.
    case heldElsewhere
    /// Nothing is left to build: the index was dropped, or is READY or ERROR.
    case finished
}

/// Declaring, building and dropping composite indexes, on a database several nodes write to.
///
/// Declaring or dropping an index takes the catalog lock exclusively and bumps `composite_catalog.version`; every
/// write batch takes the lock shared and reads the version right after BEGIN, reloading the catalog when it
/// changed. So once a declaration has committed, every batch on every node keeps the new index's entries, and
/// every batch that did not know about it had committed before (the declaration waited for it).
///
/// The existing documents are then indexed in the background, a window of document row ids per transaction on a
/// connection of its own, so writes never wait for the build. A build step reads its documents `FOR SHARE`: a
/// document a concurrent write is changing (which holds it `FOR UPDATE`) is read after that write committed, so
/// the step indexes what the write left, and a write that comes after the step finds the step's entries to
/// replace. The step that passes the last document marks the index READY (bumping the version, so other nodes'
/// planners learn of it); the planner uses only READY indexes. A restart resumes an unfinished build.
///
/// One node builds at a time: the declaring node claims the build in the declaring transaction, and each step
/// renews the claim (`build_owner`, `build_lease_until` = now + `indexBuildLease`) in its own transaction, which
/// holds the index's row. A node that finds the row locked (a step is running) or the lease running leaves the
/// build alone and checks again every half lease; once the lease ran out (the builder stopped or died), it takes
/// the build over from the last committed step. Every node watches the unfinished builds its catalog shows.
extension PostgresDocumentStore {
    /// Document row ids per build step.
    static let buildWindow: Int64 = 5000
    /// Entries deleted per step when an index is dropped.
    static let dropBatch = 5000
    /// How stale a query's view of the catalog may be (other nodes' declarations, READY states and drops).
    static let catalogCheckSeconds = 1.0

    public var compositeIndexes: [CompositeIndexStatus] { composites.all }

    @discardableResult
    public func createIndex(_ index: CompositeIndex) throws -> CompositeIndexStatus {
        if let existing = composites.status(of: index) { return existing }
        let definition = String(decoding: index.json.jsonBytes, as: UTF8.self)
        let (iid, created) = try pool.withConnection { connection -> (Int64, Bool) in
            try connection.transaction { connection in
                try connection.query("SELECT pg_advisory_xact_lock($1)", [.int(PostgresDocumentSchema.catalogLock)])
                let found = try connection.query(
                    "SELECT iid FROM composite_indexes WHERE definition = $1", [.text(definition)],
                    resultFormat: .binary)
                if found.rowCount == 1, let iid = try found.int(0, 0) { return (iid, false) }
                // Claimed from the start, so another node's watcher does not start it first.
                let inserted = try connection.query(
                    """
                    INSERT INTO composite_indexes(definition, state, build_owner, build_lease_until)
                    VALUES($1, 'CREATING', $2, clock_timestamp() + $3 * interval '1 microsecond') RETURNING iid
                    """, [.text(definition), .text(builder), .int(configuration.indexBuildLease)],
                    resultFormat: .binary)
                try connection.execute("UPDATE composite_catalog SET version = version + 1")
                return (try inserted.int(0, 0) ?? 0, true)
            }
        }
        let status = CompositeIndexStatus(id: iid, index: index, state: .creating, documentsScanned: 0)
        if composites.status(id: iid) == nil { composites.put(status) }
        guard created else {
            startBuild(iid)  // another node's: watched, in case that node stops
            return composites.status(id: iid) ?? status
        }
        configuration.log?("index \(iid) \(index): CREATING (building in the background)")
        startBuild(iid)
        return status
    }

    public func dropIndex(id: Int64) -> Bool {
        guard let status = composites.status(id: id) else { return false }
        do {
            try pool.withConnection { connection in
                try connection.transaction { connection in
                    try connection.query(
                        "SELECT pg_advisory_xact_lock($1)", [.int(PostgresDocumentSchema.catalogLock)])
                    try connection.query("DELETE FROM composite_indexes WHERE iid = $1", [.int(id)])
                    try connection.execute("UPDATE composite_catalog SET version = version + 1")
                }
            }
        } catch {
            configuration.log?("index \(id) \(status.index): dropping failed: \(error)")
            return false
        }
        composites.remove(id)
        configuration.log?("index \(id) \(status.index): dropped")
        indexJobs.async { [self] in
            while !indexBuildsStopped.load(ordering: .acquiring) {
                let deleted = try? pool.withConnection { connection in
                    try connection.query(
                        """
                        DELETE FROM cidx WHERE iid = $1 AND (scope, key) IN
                            (SELECT scope, key FROM cidx WHERE iid = $1 LIMIT $2)
                        """, [.int(id), .int(Int64(Self.dropBatch))]
                    ).affectedRows
                }
                if (deleted ?? 0) == 0 { break }
            }
        }
        return true
    }

    public func waitForIndexJobs() { indexJobs.sync {} }

    /// The store's name in `composite_indexes.build_owner`.
    var builder: String { catalogState.withLock { $0.builder } }

    /// Builds index `iid` from where its build stopped, in the background, or watches it while another node
    /// builds it; once per index at a time.
    func startBuild(_ iid: Int64) {
        guard catalogState.withLock({ $0.builds.insert(iid).inserted }) else { return }
        runBuild(iid)
    }

    private func runBuild(_ iid: Int64) {
        indexJobs.async { [self] in
            var retryAfter: Double?
            defer {
                if indexBuildsStopped.load(ordering: .acquiring) {
                    releaseClaim(iid)
                } else if let retryAfter {
                    retryBuild(iid, after: retryAfter)
                } else {
                    catalogState.withLock { _ = $0.builds.remove(iid) }
                }
            }
            guard let status = composites.status(id: iid) else { return }
            let started = MonotonicClock.seconds()
            var lastReport = started
            var builtHere = false
            while !indexBuildsStopped.load(ordering: .acquiring), composites.status(id: iid) != nil {
                do {
                    let step = try pool.withConnection { try buildStep(iid, status.index, $0) }
                    guard case .built(let scanned, let done) = step else {
                        if case .heldElsewhere = step {
                            if catalogState.withLock({ $0.buildsElsewhere.insert(iid).inserted }) {
                                configuration.log?(
                                    "index \(iid) \(status.index): another node is building it; "
                                        + "this node takes over if that node stops")
                            }
                            retryAfter = Double(configuration.indexBuildLease) / 2e6
                        }
                        return
                    }
                    if !builtHere, catalogState.withLock({ $0.buildsElsewhere.remove(iid) != nil }) {
                        configuration.log?("index \(iid) \(status.index): taking over the build from another node")
                    }
                    builtHere = true
                    let total = composites.recordBuildStep(iid, scanned: scanned, done: done)
                    if done {
                        let seconds = String(format: "%.1f", MonotonicClock.seconds() - started)
                        configuration.log?("index \(iid) \(status.index): READY (\(total) documents, \(seconds) s)")
                        analyze(["cidx"])  // the planner's view of the new entries, before queries use them
                        return
                    }
                    if MonotonicClock.seconds() - lastReport >= 5 {
                        lastReport = MonotonicClock.seconds()
                        configuration.log?("index \(iid) \(status.index): CREATING, \(total) documents so far")
                    }
                } catch let error as PostgresError where error.isDeadlock || error.isSerializationFailure {
                    // A write locked documents of the window in another order (it waits for this step, this step
                    // for it); PostgreSQL aborted one of the two. The step is simply run again.
                    continue
                } catch let error as PostgresError where error.isConnectionFailure {
                    // The database restarted or failed over: the build goes on from its last committed step later,
                    // here or (once the lease ran out) on another node.
                    if indexBuildsStopped.load(ordering: .acquiring) { return }
                    configuration.log?("index \(iid) \(status.index): build interrupted (\(error)); resuming later")
                    retryAfter = Double(configuration.indexBuildLease) / 2e6
                    return
                } catch {
                    if indexBuildsStopped.load(ordering: .acquiring) { return }
                    composites.update(iid) {
                        $0.state = .error
                        $0.message = "\(error)"
                    }
                    _ = try? pool.withConnection { connection in
                        try connection.query(
                            "UPDATE composite_indexes SET state = 'ERROR', message = $1 WHERE iid = $2",
                            [.text("\(error)"), .int(iid)])
                    }
                    configuration.log?("index \(iid) \(status.index): ERROR \(error)")
                    return
                }
            }
        }
    }

    /// Stopping: gives up this store's claim on the build (its declaration's or its last step's), so another node,
    /// or this one restarted, need not wait for the lease to run out. SKIP LOCKED: a row another node's step holds
    /// is no longer this store's to give up, and closing must not wait for that step.
    private func releaseClaim(_ iid: Int64) {
        _ = try? pool.withConnection { connection in
            try connection.query(
                """
                UPDATE composite_indexes SET build_lease_until = NULL
                WHERE iid = (SELECT iid FROM composite_indexes WHERE iid = $1 AND build_owner = $2 FOR UPDATE SKIP LOCKED)
                """, [.int(iid), .text(builder)])
        }
    }

    /// Runs the build (or checks on another node's) again after `seconds`, on the index jobs' own thread, unless
    /// the store closed meanwhile.
    private func retryBuild(_ iid: Int64, after seconds: Double) {
        indexJobs.async(after: seconds) { [weak self] in
            guard let self else { return }
            if indexBuildsStopped.load(ordering: .acquiring) || composites.status(id: iid) == nil {
                catalogState.withLock { _ = $0.builds.remove(iid) }
                return
            }
            runBuild(iid)
        }
    }

    /// One transaction of a build: indexes the documents with `rid` in `(build_rid, build_rid + window]` of the
    /// index's collections and renews this node's claim, unless another node holds the build.
    private func buildStep(_ iid: Int64, _ index: CompositeIndex, _ connection: PostgresConnection) throws
        -> BuildStep
    {
        try connection.transaction { connection in
            // SKIP LOCKED: a row another node's step holds is a build running there; waiting for it would only
            // run the next step here.
            let state = try connection.query(
                """
                SELECT build_rid, state = 'CREATING', build_owner IS NOT DISTINCT FROM $2
                    OR build_lease_until IS NULL OR build_lease_until <= clock_timestamp()
                FROM composite_indexes WHERE iid = $1 FOR UPDATE SKIP LOCKED
                """, [.int(iid), .text(builder)], resultFormat: .binary)
            guard state.rowCount == 1, let from = try state.int(0, 0) else {
                let exists = try connection.query("SELECT 1 FROM composite_indexes WHERE iid = $1", [.int(iid)])
                return exists.rowCount == 1 ? .heldElsewhere : .finished
            }
            guard try state.bool(0, 1) == true else { return .finished }
            guard try state.bool(0, 2) == true else { return .heldElsewhere }
            let rows = try connection.query(
                """
                SELECT d.cid, d.id, d.data, c.path FROM docs d JOIN collections c ON c.cid = d.cid
                WHERE d.rid > $1 AND d.rid <= $2 AND c.group_id = $3 FOR SHARE OF d
                """, [.int(from), .int(from + Self.buildWindow), PostgresRows.name(index.collectionGroup)],
                resultFormat: .binary)
            // The entries travel as four array parameters of one statement (text-form array literals): one
            // round trip per step, and PostgreSQL parses arrays much faster than thousands of bound values.
            var scopes = PostgresArrayLiteral()
            var keys = PostgresArrayLiteral()
            var cids = PostgresArrayLiteral()
            var ids = PostgresArrayLiteral()
            for row in 0..<rows.rowCount {
                guard let cid = try rows.int(row, 0), let bytes = rows.bytes(row, 2), let idBytes = rows.bytes(row, 1),
                    let collection = try? CollectionPath(PostgresRows.text(rows, row, 3)),
                    case .object(let fields) = try JSONValue.parse(bytes, maxDepth: 512)
                else { continue }
                let id = String(decoding: idBytes, as: UTF8.self)
                let scope = index.scope == .collection ? cid : 0
                for key in CompositeIndexKey.keys(index, fields: fields, id: id, collection: collection) {
                    scopes.append(scope)
                    keys.append(key)
                    cids.append(cid)
                    ids.append(idBytes)
                }
            }
            if !keys.isEmpty {
                try connection.query(
                    """
                    INSERT INTO cidx(iid, scope, key, cid, id)
                    SELECT $1, s, k, c, i FROM unnest($2::bigint[], $3::bytea[], $4::bigint[], $5::bytea[]) AS u(s, k, c, i)
                    ON CONFLICT DO NOTHING
                    """, [.int(iid), .text(scopes.text), .text(keys.text), .text(cids.text), .text(ids.text)])
            }
            let position = from + Self.buildWindow
            let largest = try connection.query("SELECT coalesce(max(rid), 0) FROM docs", resultFormat: .binary)
            let done = position >= (try largest.int(0, 0) ?? 0)
            try connection.query(
                """
                UPDATE composite_indexes SET build_rid = $1, scanned = scanned + $2, state = $3, build_owner = $5,
                    build_lease_until = clock_timestamp() + $6 * interval '1 microsecond'
                WHERE iid = $4
                """,
                [
                    .int(position), .int(Int64(rows.rowCount)), .text(done ? "READY" : "CREATING"), .int(iid),
                    .text(builder), .int(configuration.indexBuildLease),
                ])
            if done { try connection.execute("UPDATE composite_catalog SET version = version + 1") }
            return .built(scanned: Int64(rows.rowCount), done: done)
        }
    }

    /// Reads `composite_indexes` into the catalog; returns the unfinished builds.
    @discardableResult
    func reloadCatalog(_ connection: PostgresConnection) throws -> [Int64] {
        let version = try connection.query("SELECT version FROM composite_catalog", resultFormat: .binary)
        let rows = try connection.query(
            "SELECT iid, definition, state, scanned, message FROM composite_indexes ORDER BY iid",
            resultFormat: .binary)
        var unfinished: [Int64] = []
        var present: Set<Int64> = []
        for row in 0..<rows.rowCount {
            guard let iid = try rows.int(row, 0), let text = rows.string(row, 1),
                let index = try? CompositeIndex(json: JSONValue.parse(Array(text.utf8)))
            else { continue }
            let state = CompositeIndexStatus.State(rawValue: rows.string(row, 2) ?? "") ?? .error
            present.insert(iid)
            let scanned = try rows.int(row, 3) ?? 0
            if let known = composites.status(id: iid), known.state == state {
                continue  // keep this node's own progress figures
            }
            composites.put(
                CompositeIndexStatus(
                    id: iid, index: index, state: state, documentsScanned: scanned, message: rows.string(row, 4)))
            if state == .creating { unfinished.append(iid) }
        }
        for status in composites.all where !present.contains(status.id) { composites.remove(status.id) }
        let loaded = try version.int(0, 0) ?? 0
        catalogState.withLock {
            $0.version = loaded
            $0.checked = MonotonicClock.seconds()
        }
        return unfinished
    }

    /// Right after a write batch's BEGIN (which took the catalog lock shared and read the catalog `version`):
    /// reloads the catalog if another declaration, drop or build changed it.
    func refreshCatalogInTransaction(_ connection: PostgresConnection, version: Int64) throws {
        if version != catalogState.withLock({ $0.version }) { watch(try reloadCatalog(connection)) }
    }

    /// Watches builds other nodes declared (`startBuild`), to take them over should their builder stop.
    private func watch(_ unfinished: [Int64]) {
        for iid in unfinished { startBuild(iid) }
    }

    /// Before planning a query: reloads the catalog when it was last checked more than `catalogCheckSeconds` ago.
    func refreshCatalogIfStale(_ connection: PostgresConnection) throws {
        let now = MonotonicClock.seconds()
        let (known, checked) = catalogState.withLock { ($0.version, $0.checked) }
        guard now - checked >= Self.catalogCheckSeconds else { return }
        let rows = try connection.query(
            "SELECT version FROM composite_catalog", resultFormat: .binary, prepared: true)
        let version = try rows.int(0, 0) ?? 0
        if version != known { watch(try reloadCatalog(connection)) } else { catalogState.withLock { $0.checked = now } }
    }
}

/// A one-dimensional array literal (`{1,2}`, `{"\\x0a0b"}`) for an array parameter.
struct PostgresArrayLiteral {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]
    private(set) var isEmpty = true

    private mutating func separate() {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
    }

    mutating func append(_ value: Int64) {
        separate()
        bytes += Array(String(value).utf8)
    }

    /// A `bytea` element in hex form, quoted: `"\\x0a0b"`.
    mutating func append(_ value: [UInt8]) {
        separate()
        bytes += [UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "\\"), UInt8(ascii: "x")]
        for byte in value {
            bytes.append(Self.hex[Int(byte >> 4)])
            bytes.append(Self.hex[Int(byte & 0x0F)])
        }
        bytes.append(UInt8(ascii: "\""))
    }

    var text: String { String(decoding: bytes + [UInt8(ascii: "}")], as: UTF8.self) }

    private static let hex = Array("0123456789abcdef".utf8)
}
