import CPostgres

/// The statements one session has prepared (`query(_:_:prepared: true)`): SQL text and parameter types → the
/// server-side name, and when each was last used, so the least recently used can be deallocated.
struct PreparedStatements {
    /// Keyed by the parameter types too: the server fixes them at PQprepare, and a later call binding, say, text
    /// where the first bound an integer needs a statement of its own.
    struct Key: Hashable {
        var sql: String
        var types: [UInt32]
    }

    private struct Entry {
        var name: String
        var lastUse: UInt64
    }

    private var entries: [Key: Entry] = [:]
    private var uses: UInt64 = 0
    /// Names are never reused by one connection, so a statement deallocated (or lost with its session) can never
    /// be mistaken for a newer one.
    private var named = 0

    var count: Int { entries.count }

    /// The name `key` was prepared under, marked as just used; nil when it is not prepared.
    mutating func use(_ key: Key) -> String? {
        uses += 1
        entries[key]?.lastUse = uses
        return entries[key]?.name
    }

    /// A name no statement of this session had.
    mutating func newName() -> String {
        named += 1
        return "kura_\(named)"
    }

    /// Records `key` as prepared under `name`, just used.
    mutating func add(_ key: Key, name: String) {
        uses += 1
        entries[key] = Entry(name: name, lastUse: uses)
    }

    /// The `count` least recently used statements, apart from those named in `kept`.
    func leastRecentlyUsed(_ count: Int, keeping kept: Set<String>) -> [(key: Key, name: String)] {
        entries.filter { !kept.contains($0.value.name) }.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(count)
            .map { ($0.key, $0.value.name) }
    }

    mutating func remove(_ keys: [Key]) {
        for key in keys { entries[key] = nil }
    }

    /// Forgets every statement (the session they lived in is gone).
    mutating func removeAll() { entries.removeAll() }
}

extension PostgresConnection {
    /// The number of statements prepared on this session now (at most `options.preparedStatementLimit`).
    public var preparedStatementCount: Int { preparedStatements.count }

    /// The server-side name of `sql` with these parameter types, preparing it first (`PQprepare`) if this session
    /// has not. Past `options.preparedStatementLimit`, the least recently used statements are deallocated, never
    /// one named in `kept` (the statements of one pipeline, prepared before it is sent).
    func preparedName(for sql: String, _ encoded: [EncodedParameter], keeping kept: Set<String> = []) throws -> String {
        let key = PreparedStatements.Key(sql: sql, types: encoded.map(\.type))
        if let name = preparedStatements.use(key) { return name }
        let name = preparedStatements.newName()
        _ = try encoded.map(\.type).withUnsafeBufferPointer { types in
            try check(PQprepare(raw, name, sql, Int32(encoded.count), types.baseAddress), doing: sql)
        }
        preparedStatements.add(key, name: name)
        deallocateBeyondLimit(keeping: kept.union([name]))
        return name
    }

    /// Deallocates the least recently used statements once there are more than the limit. A DEALLOCATE per new
    /// statement would add a round trip to every statement prepared once the cache is full, so it frees an eighth
    /// of the room at once, in one round trip. DEALLOCATE is not transactional (nor is PQprepare), so this may run
    /// inside a transaction.
    private func deallocateBeyondLimit(keeping kept: Set<String>) {
        let limit = options.preparedStatementLimit
        guard preparedStatements.count > limit else { return }
        let victims = preparedStatements.leastRecentlyUsed(
            preparedStatements.count - limit + limit / 8, keeping: kept)
        guard !victims.isEmpty else { return }
        let sql = victims.map { "DEALLOCATE \($0.name)" }.joined(separator: "; ")
        // On failure (the connection broke) they stay listed: the next statement reports the broken connection,
        // and a reconnect forgets them all.
        guard (try? check(PQexec(raw, sql), doing: sql)) != nil else { return }
        preparedStatements.remove(victims.map(\.key))
    }
}
