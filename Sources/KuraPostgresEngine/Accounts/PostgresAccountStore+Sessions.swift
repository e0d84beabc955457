import KuraAuth
import KuraCore
import KuraModel
import KuraPostgres

extension PostgresAccountStore {
    private static let sessionColumns = "id, uid, generation, auth_time, create_time, revoked"

    public func insertSession(_ session: SessionRecord, refreshTokenHash: [UInt8]) throws {
        try pool.withConnection { connection in
            try connection.query(
                "INSERT INTO sessions (\(Self.sessionColumns), refresh_token_hash) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                [
                    .text(session.id), .text(session.uid), .int(session.generation), .int(session.authTime),
                    .int(session.createTime), .bool(session.revoked), .bytes(refreshTokenHash),
                ], prepared: true)
        }
    }

    public func session(id: String) throws -> SessionRecord? {
        try pool.withIdempotentConnection { connection in
            let rows = try connection.query(
                "SELECT \(Self.sessionColumns) FROM sessions WHERE id = $1", [.text(id)], resultFormat: .binary,
                prepared: true)
            return rows.rowCount == 0 ? nil : try Self.session(rows, 0)
        }
    }

    /// One transaction. The session row is locked (`FOR UPDATE`) before anything is decided: a second node presenting
    /// the same token waits at its lock, then (READ COMMITTED re-reads a row that changed while it waited) no longer
    /// finds the token current and takes the spent-token path, which finds the rotation the first node committed.
    public func rotateRefreshToken(presentedHash: [UInt8], newHash: [UInt8], now: Int64, reuseGrace: Int64) throws
        -> RefreshRotation
    {
        try pool.withConnection { connection in
            try connection.transaction { connection in
                let current = try connection.query(
                    "SELECT \(Self.sessionColumns) FROM sessions WHERE refresh_token_hash = $1 FOR UPDATE",
                    [.bytes(presentedHash)], resultFormat: .binary, prepared: true)
                if current.rowCount > 0 {
                    let session = try Self.session(current, 0)
                    guard !session.revoked else { return .invalid }
                    return .rotated(
                        try Self.rotate(session, spent: presentedHash, to: newHash, now: now, in: connection))
                }
                let rotated = try connection.query(
                    """
                    SELECT s.id, s.uid, s.generation, s.auth_time, s.create_time, s.revoked, r.rotated_at, r.generation,
                           s.refresh_token_hash
                    FROM rotated_refresh_tokens r JOIN sessions s ON s.id = r.session_id WHERE r.hash = $1
                    FOR UPDATE OF s
                    """, [.bytes(presentedHash)], resultFormat: .binary, prepared: true)
                guard rotated.rowCount > 0 else { return .invalid }
                var session = try Self.session(rotated, 0)
                guard !session.revoked else { return .invalid }
                // The token spent last (its rotation made the current generation), presented again soon after: a
                // retry of a refresh whose answer was lost. It gets a new token; the one issued in between is spent,
                // with no grace of its own, so that two holders of a token cannot keep taking turns.
                if reuseGrace > 0, let spentAt = try rotated.int(0, 6), let spentGeneration = try rotated.int(0, 7),
                    spentGeneration == session.generation, now - spentAt <= reuseGrace,
                    let currentHash = rotated.bytes(0, 8)
                {
                    return .rotated(try Self.rotate(session, spent: currentHash, to: newHash, now: nil, in: connection))
                }
                try connection.query(
                    "UPDATE sessions SET revoked = true WHERE id = $1", [.text(session.id)], prepared: true)
                session.revoked = true
                return .reused(session)
            }
        }
    }

    /// Makes `newHash` the session's refresh token and records `spent` as spent by this rotation, at `now` (`nil`:
    /// no reuse grace for it). Runs inside the caller's transaction, which holds the session's row lock.
    private static func rotate(
        _ session: SessionRecord, spent: [UInt8], to newHash: [UInt8], now: Int64?, in connection: PostgresConnection
    ) throws -> SessionRecord {
        var session = session
        session.generation += 1
        try connection.query(
            "INSERT INTO rotated_refresh_tokens (hash, session_id, rotated_at, generation) VALUES ($1, $2, $3, $4)",
            [.bytes(spent), .text(session.id), now.map(PostgresValue.int) ?? .null, .int(session.generation)],
            prepared: true)
        try connection.query(
            "UPDATE sessions SET refresh_token_hash = $1, generation = $2 WHERE id = $3",
            [.bytes(newHash), .int(session.generation), .text(session.id)], prepared: true)
        return session
    }

    public func revokeSession(id: String) throws {
        try pool.withIdempotentConnection { connection in
            try connection.query("UPDATE sessions SET revoked = true WHERE id = $1", [.text(id)], prepared: true)
        }
    }

    public func revokeSessions(uid: String, except exceptID: String?) throws {
        try pool.withIdempotentConnection { connection in
            try connection.query(
                "UPDATE sessions SET revoked = true WHERE uid = $1 AND id <> $2 AND NOT revoked",
                [.text(uid), .text(exceptID ?? "")], prepared: true)
        }
    }

    public func insertActionCode(_ code: ActionCodeRecord) throws {
        try pool.withConnection { connection in
            try connection.query(
                "INSERT INTO action_codes (hash, kind, uid, email, expire_time, used) VALUES ($1, $2, $3, $4, $5, false)",
                [
                    .bytes(code.hash), .text(code.kind.rawValue), .text(code.uid), .text(code.email),
                    .int(code.expireTime),
                ],
                prepared: true)
        }
    }

    /// One transaction that locks the code's row before reading it: of two nodes spending one code at once, the
    /// second waits, then reads it as used.
    public func consumeActionCode(hash: [UInt8], kind: ActionCodeKind, now: Int64) throws -> ActionCodeUse {
        try pool.withConnection { connection in
            try connection.transaction { connection in
                let rows = try connection.query(
                    "SELECT kind, uid, email, expire_time, used FROM action_codes WHERE hash = $1 FOR UPDATE",
                    [.bytes(hash)], resultFormat: .binary, prepared: true)
                guard rows.rowCount > 0, rows.string(0, 0) == kind.rawValue, try rows.bool(0, 4) == false else {
                    return .invalid
                }
                let record = ActionCodeRecord(
                    hash: hash, kind: kind, uid: rows.string(0, 1) ?? "", email: rows.string(0, 2) ?? "",
                    expireTime: try rows.int(0, 3) ?? 0)
                guard record.expireTime > now else { return .expired }
                try connection.query(
                    "UPDATE action_codes SET used = true WHERE hash = $1", [.bytes(hash)], prepared: true)
                return .consumed(record)
            }
        }
    }

    public func unusedActionCode(hash: [UInt8]) throws -> ActionCodeRecord? {
        try pool.withIdempotentConnection { connection in
            let rows = try connection.query(
                "SELECT kind, uid, email, expire_time FROM action_codes WHERE hash = $1 AND NOT used",
                [.bytes(hash)], resultFormat: .binary, prepared: true)
            guard rows.rowCount > 0, let kind = rows.string(0, 0).flatMap(ActionCodeKind.init(rawValue:)) else {
                return nil
            }
            return ActionCodeRecord(
                hash: hash, kind: kind, uid: rows.string(0, 1) ?? "", email: rows.string(0, 2) ?? "",
                expireTime: try rows.int(0, 3) ?? 0)
        }
    }

    @discardableResult public func purge(now: Int64) throws -> Int {
        try pool.withIdempotentConnection { connection in
            try connection.transaction { connection in
                // Used codes are kept until they expire so a second use answers INVALID, not a confusing EXPIRED.
                let codes = try connection.query("DELETE FROM action_codes WHERE expire_time <= $1", [.int(now)])
                let sessions = try connection.query("DELETE FROM sessions WHERE revoked")
                return codes.affectedRows + sessions.affectedRows
            }
        }
    }

    private static func session(_ rows: PostgresResult, _ row: Int) throws -> SessionRecord {
        SessionRecord(
            id: rows.string(row, 0) ?? "", uid: rows.string(row, 1) ?? "", generation: try rows.int(row, 2) ?? 0,
            authTime: try rows.int(row, 3) ?? 0, createTime: try rows.int(row, 4) ?? 0,
            revoked: try rows.bool(row, 5) ?? false)
    }
}
