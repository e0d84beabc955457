import KuraAuth
import KuraCore
import KuraModel
import KuraSQLite

extension SQLiteAccountStore {
    private static let sessionColumns = "id, uid, generation, auth_time, create_time, revoked"

    public func insertSession(_ session: SessionRecord, refreshTokenHash: [UInt8]) throws {
        try write { db in
            try db.run(
                "INSERT INTO sessions (\(Self.sessionColumns), refresh_token_hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(session.id), .text(session.uid), .int(session.generation), .int(session.authTime),
                    .int(session.createTime), .int(session.revoked ? 1 : 0), .blob(refreshTokenHash),
                ])
        }
    }

    public func session(id: String) throws -> SessionRecord? {
        try read { try $0.rows("SELECT \(Self.sessionColumns) FROM sessions WHERE id = ?", [.text(id)]) }
            .first.map(Self.session(from:))
    }

    public func rotateRefreshToken(presentedHash: [UInt8], newHash: [UInt8], now: Int64, reuseGrace: Int64) throws
        -> RefreshRotation
    {
        try write { db in
            let current = try db.rows(
                "SELECT \(Self.sessionColumns) FROM sessions WHERE refresh_token_hash = ?", [.blob(presentedHash)])
            if let row = current.first {
                let session = Self.session(from: row)
                guard !session.revoked else { return .invalid }
                return .rotated(try rotate(session, spent: presentedHash, to: newHash, now: now, in: db))
            }
            let rotated = try db.rows(
                """
                SELECT s.id, s.uid, s.generation, s.auth_time, s.create_time, s.revoked, r.rotated_at, r.generation,
                       s.refresh_token_hash
                FROM rotated_refresh_tokens r JOIN sessions s ON s.id = r.session_id WHERE r.hash = ?
                """, [.blob(presentedHash)])
            guard let row = rotated.first else { return .invalid }
            var session = Self.session(from: row)
            guard !session.revoked else { return .invalid }
            // The token spent last (its rotation made the current generation), presented again soon after: a retry
            // of a refresh whose answer was lost. It gets a new token; the one issued in between is spent, with no
            // grace of its own, so that two holders of a token cannot keep taking turns.
            if reuseGrace > 0, let spentAt = row[6].int, let spentGeneration = row[7].int,
                spentGeneration == session.generation, now - spentAt <= reuseGrace, let currentHash = row[8].blob
            {
                return .rotated(try rotate(session, spent: currentHash, to: newHash, now: nil, in: db))
            }
            try db.run("UPDATE sessions SET revoked = 1 WHERE id = ?", [.text(session.id)])
            session.revoked = true
            return .reused(session)
        }
    }

    /// Makes `newHash` the session's refresh token and records `spent` as spent by this rotation, at `now` (`nil`:
    /// no reuse grace for it).
    private func rotate(
        _ session: SessionRecord, spent: [UInt8], to newHash: [UInt8], now: Int64?, in db: SQLiteConnection
    ) throws -> SessionRecord {
        var session = session
        session.generation += 1
        try db.run(
            "INSERT INTO rotated_refresh_tokens (hash, session_id, rotated_at, generation) VALUES (?, ?, ?, ?)",
            [.blob(spent), .text(session.id), now.map { .int($0) } ?? .null, .int(session.generation)])
        try db.run(
            "UPDATE sessions SET refresh_token_hash = ?, generation = ? WHERE id = ?",
            [.blob(newHash), .int(session.generation), .text(session.id)])
        return session
    }

    public func revokeSession(id: String) throws {
        try write { try $0.run("UPDATE sessions SET revoked = 1 WHERE id = ?", [.text(id)]) }
    }

    public func revokeSessions(uid: String, except exceptID: String?) throws {
        try write {
            try $0.run(
                "UPDATE sessions SET revoked = 1 WHERE uid = ? AND id != ?", [.text(uid), .text(exceptID ?? "")])
        }
    }

    public func insertActionCode(_ code: ActionCodeRecord) throws {
        try write { db in
            try db.run(
                "INSERT INTO action_codes (hash, kind, uid, email, expire_time, used) VALUES (?, ?, ?, ?, ?, 0)",
                [
                    .blob(code.hash), .text(code.kind.rawValue), .text(code.uid), .text(code.email),
                    .int(code.expireTime),
                ])
        }
    }

    public func consumeActionCode(hash: [UInt8], kind: ActionCodeKind, now: Int64) throws -> ActionCodeUse {
        try write { db in
            let rows = try db.rows(
                "SELECT kind, uid, email, expire_time, used FROM action_codes WHERE hash = ?", [.blob(hash)])
            guard let row = rows.first, row[0].text == kind.rawValue, row[4].int == 0 else { return .invalid }
            let record = ActionCodeRecord(
                hash: hash, kind: kind, uid: row[1].text ?? "", email: row[2].text ?? "", expireTime: row[3].int ?? 0)
            guard record.expireTime > now else { return .expired }
            try db.run("UPDATE action_codes SET used = 1 WHERE hash = ?", [.blob(hash)])
            return .consumed(record)
        }
    }

    public func unusedActionCode(hash: [UInt8]) throws -> ActionCodeRecord? {
        try read { db in
            let rows = try db.rows(
                "SELECT kind, uid, email, expire_time FROM action_codes WHERE hash = ? AND used = 0", [.blob(hash)])
            guard let row = rows.first, let kind = row[0].text.flatMap(ActionCodeKind.init(rawValue:)) else {
                return nil
            }
            return ActionCodeRecord(
                hash: hash, kind: kind, uid: row[1].text ?? "", email: row[2].text ?? "", expireTime: row[3].int ?? 0)
        }
    }

    @discardableResult public func purge(now: Int64) throws -> Int {
        try write { db in
            // Used codes are kept until they expire so a second use answers INVALID, not a confusing EXPIRED.
            try db.run("DELETE FROM action_codes WHERE expire_time <= ?", [.int(now)])
            let codes = db.changes
            try db.run("DELETE FROM sessions WHERE revoked = 1")
            return codes + db.changes
        }
    }

    private static func session(from row: [SQLiteValue]) -> SessionRecord {
        SessionRecord(
            id: row[0].text ?? "", uid: row[1].text ?? "", generation: row[2].int ?? 0, authTime: row[3].int ?? 0,
            createTime: row[4].int ?? 0, revoked: row[5].int == 1)
    }
}
