import Foundation
internal import KuraModel

/// The write queue: durable entries sent one at a time, in order, each with its receipt (see `OfflineStore`).
extension OfflineStore {

    /// The current account's queued writes, oldest first.
    func pendingWrites() throws -> [Write] { try entries().flatMap(\.writes) }

    func entries(limit: Int? = nil) throws -> [Entry] {
        let rows = try database.query(
            "SELECT sequence, uid, writes, receipt, queued_at FROM pending_writes WHERE uid = ? ORDER BY sequence"
                + (limit.map { " LIMIT \($0)" } ?? ""), [.text(uid)])
        return try rows.map { row in
            let writes = try (try JSONText.decode(Data((row[2].text ?? "[]").utf8)).arrayValue ?? []).map { json in
                var write = try Write(json: json)
                write.localTime = row[4].text
                return write
            }
            return Entry(
                sequence: row[0].integer ?? 0, uid: row[1].text ?? "", writes: writes, receipt: row[3].text)
        }
    }

    /// The number of writes (queue entries) not yet acknowledged, for the current account.
    var pendingCount: Int {
        (try? database.query("SELECT count(*) FROM pending_writes WHERE uid = ?", [.text(uid)]).first?[0].integer)
            .flatMap { $0 }.map(Int.init) ?? 0
    }

    /// `document` with the queued writes to its path applied, and whether there were any. `.none` for an unknown
    /// base stays unknown unless a write fully determines the result.
    func overlay(_ path: String, on base: RemoteDocument??, pending: [Write]) -> (RemoteDocument??, Bool) {
        var document = base
        var touched = false
        for write in pending where write.path.bytesEqual(path) {
            touched = true
            switch (document, write.operation) {
            case (nil, .update), (nil, .set(_, merge: true)): continue  // unknown base: cannot tell
            default:
                document = .some(LocalEvaluation.apply(write, to: document ?? nil, time: write.localTime ?? Self.now()))
            }
        }
        return (document, touched)
    }

    static func now() -> String { RFC3339.string(from: Date()) }

    /// Queues `writes` as one atomic entry and waits until the server acknowledged it, or until it is known to be
    /// unreachable (the entry then waits in the queue). Throws the server's refusal.
    func submit(_ writes: [Write]) async throws {
        let uid = self.uid
        let hasCreate = writes.contains { if case .create = $0.operation { true } else { false } }
        let receipt =
            hasCreate || uid.isEmpty
            ? nil
            : receiptCollection.map {
                $0.replacingOccurrences(of: "{uid}", with: uid) + "/" + AutoID.make()
            }
        let json = String(decoding: try JSONText.encode(.array(writes.map(\.json))), as: UTF8.self)
        let sequence = try database.transaction { () throws -> Int64 in
            try database.run(
                "INSERT INTO pending_writes(uid, writes, receipt, queued_at) VALUES (?, ?, ?, ?)",
                [.text(uid), .text(json), receipt.map(LocalDatabase.Value.text) ?? .null, .text(Self.now())])
            return try database.run("SELECT last_insert_rowid()", []).first?[0].integer ?? 0
        }
        notify(writes.map(\.path))
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let offline = state.withLock { state -> Bool in
                if !state.offline { state.waiters[sequence] = continuation }
                return state.offline
            }
            // Known to be offline: the write is safe in the queue; no need to wait for another failed attempt.
            if offline { continuation.resume() }
            flush()
        }
    }

    func notify(_ paths: [String]) {
        state.current.observer?(paths)
    }

    // MARK: Sending

    /// Starts sending the queue unless that is under way.
    func flush() {
        state.withLock { state in
            guard state.flusher == nil else {
                state.flushAgain = true
                return
            }
            state.flusher = Task { await self.drain() }
        }
    }

    /// The server answered something: if the queue was waiting for it, send it now.
    func serverReached() {
        let wasOffline = state.withLock { state -> Bool in
            defer { state.offline = false }
            return state.offline
        }
        if wasOffline { flush() }
    }

    func drain() async {
        while true {
            let more: Bool
            do {
                more = try await sendNext()
            } catch {
                more = false
            }
            let again = state.withLock { state -> Bool in
                if more || state.flushAgain {
                    state.flushAgain = false
                    return true
                }
                state.flusher = nil
                return false
            }
            if !again { break }
        }
    }

    /// Sends the oldest entry; returns whether to go on with the next.
    func sendNext() async throws -> Bool {
        guard let entry = try entries(limit: 1).first else {
            try await deleteStaleReceipts()
            return false
        }
        // Counted before sending, so an attempt interrupted by a crash counts too (and one by another process
        // sharing the file: the count is read back in the same transaction).
        let attempts = try database.transaction { () throws -> Int64 in
            try database.run(
                "UPDATE pending_writes SET attempts = attempts + 1 WHERE sequence = ?", [.integer(entry.sequence)])
            return try database.run(
                "SELECT attempts FROM pending_writes WHERE sequence = ?", [.integer(entry.sequence)]
            ).first?[0].integer ?? 1
        }
        var writes = entry.writes
        if let receipt = entry.receipt {
            // First, so that a repeat fails on it before any other write can fail for another reason.
            writes.insert(Write(path: receipt, operation: .create([:])), at: 0)
        }
        do {
            let response = try await auth.call(
                APIRequest("POST", "/api/commit", body: ["writes": .array(writes.map(\.json))]))
            try acknowledge(entry, CommitResult(json: response.body))
            return true
        } catch let error as KuraError where error.isNetworkFailure || Self.isTransient(error) {
            goOffline()
            return false
        } catch let error as KuraError where Self.isContention(error) {
            // Not applied, and worth sending again: it stays first in the queue and in local views (Firestore
            // never drops a write for ABORTED). Its caller, if still waiting, goes on waiting.
            retryLater()
            return false
        } catch let error as KuraError where error.code == .alreadyExists && attempts > 1 {
            // An earlier attempt whose answer was lost had been applied: its receipt (or new document) exists.
            try acknowledge(entry, nil)
            return true
        } catch let error as KuraError
            where error.code == .notSignedIn || Auth.isTokenRejection(error)
            || error.code == .invalidRefreshToken
        {
            // The account's session is over; its writes wait until it signs in again.
            resolveAllWaiters()
            return false
        } catch {
            try reject(entry, error)
            return true
        }
    }

    /// Answers that say the write was not applied *this time* (contention, a passing limit): it is retried with
    /// backoff, never dropped. Only permanent refusals (permission denied, invalid argument, a missing
    /// document…) leave the queue.
    static func isContention(_ error: KuraError) -> Bool {
        [.aborted, .resourceExhausted, .overflow].contains(error.code)
    }

    static func isTransient(_ error: KuraError) -> Bool {
        [.unavailable, .internal, .tooManyAttemptsTryLater, .requestTimeout].contains(error.code)
            || (error.status ?? 0) >= 500
    }

    /// The server applied `entry`: drop it, update the cache, release its caller.
    ///
    /// Its writes are recorded as unconfirmed *before* the entry leaves the queue, so a listener computing its view
    /// in between finds each write in the queue or among the unconfirmed ones, and never shows the document
    /// vanish and come back.
    func acknowledge(_ entry: Entry, _ result: CommitResult?) throws {
        let offset = entry.receipt == nil ? 0 : 1
        state.withLock { state in
            for (index, write) in entry.writes.enumerated() {
                var write = write
                write.localTime = result?.commitTime ?? write.localTime
                write.acknowledged = result?.commitTime != nil
                state.unconfirmed[ByteKey(write.path), default: []].append(
                    Unconfirmed(
                        write: write, version: result?.versions[safe: index + offset] ?? 1,
                        time: ProcessInfo.processInfo.systemUptime,
                        sequence: entry.sequence))
            }
        }
        try database.transaction {
            try database.run("DELETE FROM pending_writes WHERE sequence = ?", [.integer(entry.sequence)])
            if let receipt = entry.receipt {
                try database.run(
                    "INSERT OR REPLACE INTO stale_receipts(path, uid) VALUES (?, ?)",
                    [.text(receipt), .text(entry.uid)])
            }
            for (index, write) in entry.writes.enumerated() {
                try cacheAcknowledged(write, version: result?.versions[safe: index + offset], time: result?.commitTime)
            }
        }
        state.withLock { $0.afterDequeue }?()
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            state.failures = 0
            state.offline = false
            return state.waiters.removeValue(forKey: entry.sequence)
        }
        waiter?.resume()
        notify(entry.writes.map(\.path))
    }

    /// The cache after an acknowledged write: exact when the write determines the document (a full set, a
    /// delete) or the cached version was the one it applied to; otherwise the path is forgotten.
    func cacheAcknowledged(_ write: Write, version: Int64?, time: String?) throws {
        let path = write.path
        let row = try database.run("SELECT json FROM documents WHERE path = ?", [.text(path)]).first
        let base: RemoteDocument?? = try row.map { row in
            try row[0].text.map { try RemoteDocument(json: try JSONText.decode(Data($0.utf8))) }
        }
        var determined = false
        switch write.operation {
        case .delete, .create: determined = true
        case .set(_, let merge): determined = !merge
        case .update: break
        }
        if let version, let base, (base?.version ?? 0) == version - 1 { determined = true }
        guard determined, let version, let time else {
            try database.run("DELETE FROM documents WHERE path = ?", [.text(path)])
            return
        }
        var document = LocalEvaluation.apply(write, to: base ?? nil, time: time)
        document?.version = version
        document?.pendingServerTimestamps = [:]
        try storeLocked(path, document)
    }

    /// The server refused `entry` (rules, a missing document…): it is dropped, and its caller gets the error.
    func reject(_ entry: Entry, _ error: any Error) throws {
        try database.execute("DELETE FROM pending_writes WHERE sequence = ?", [.integer(entry.sequence)])
        let (waiter, observers) = state.withLock { state in
            (state.waiters.removeValue(forKey: entry.sequence), Array(state.rejectionObservers.values))
        }
        if let waiter {
            waiter.resume(throwing: error)
        } else {
            // Its caller returned long ago (the write was queued offline): tell whoever listens.
            let rejection = RejectedWrite(
                paths: entry.writes.map(\.path),
                error: error as? KuraError ?? KuraError(.internal, "\(error)"))
            for observer in observers { observer.yield(rejection) }
        }
        notify(entry.writes.map(\.path))
    }

    /// Unreachable: callers return (their writes are queued) and a retry is scheduled.
    func goOffline() {
        let failures = state.withLock { state -> Int in
            state.offline = true
            state.failures += 1
            return state.failures
        }
        resolveAllWaiters()
        scheduleRetry(failures: failures)
    }

    /// The server answered but did not apply the first entry: send it again after a backoff, still online.
    func retryLater() {
        let failures = state.withLock { state -> Int in
            state.failures += 1
            return state.failures
        }
        scheduleRetry(failures: failures)
    }

    /// Flushes again after 0.2 s, 0.4 s… up to 5 s, by the number of failures in a row.
    func scheduleRetry(failures: Int) {
        let delay = min(5.0, 0.2 * pow(2, Double(min(failures - 1, 10))))
        let retry = Task {
            try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
            if !Task.isCancelled { self.flush() }
        }
        state.withLock { state in
            state.retry?.cancel()
            state.retry = retry
        }
    }

    func resolveAllWaiters() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Deletes receipts of acknowledged entries (best effort; kept for the next drain if it fails).
    func deleteStaleReceipts() async throws {
        let paths = try database.query(
            "SELECT path FROM stale_receipts WHERE uid = ? LIMIT 500", [.text(uid)]
        ).compactMap { $0[0].text }
        guard !paths.isEmpty else { return }
        _ = try await auth.call(
            APIRequest("POST", "/api/commit", body: ["writes": .array(paths.map { Write.delete($0).json })]))
        try database.transaction {
            for path in paths { try database.run("DELETE FROM stale_receipts WHERE path = ?", [.text(path)]) }
        }
    }
}
