import KuraCore
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

    public func rotateRefreshToken(presentedHash: [UInt8], newHash: [UInt8]) throws -> RefreshRotation {
        try write { db in
            let current = try db.rows(
                "SELECT \(Self.sessionColumns) FROM sessions WHERE refresh_token_hash = ?", [.blob(presentedHash)])
            if let row = current.first {
                var session = Self.session(from: row)
                guard !session.revoked else { return .invalid }
                session.generation += 1
                try db.run(
                    "INSERT INTO rotated_refresh_tokens (hash, session_id) VALUES (?, ?)",
                    [.blob(presentedHash), .text(session.id)])
                try db.run(
                    "UPDATE sessions SET refresh_token_hash = ?, generation = ? WHERE id = ?",
                    [.blob(newHash), .int(session.generation), .text(session.id)])
                return .rotated(session)
            }
            let rotated = try db.rows(
                """
                SELECT \(Self.sessionColumns) FROM sessions
                WHERE id = (SELECT session_id FROM rotated_refresh_tokens WHERE hash = ?)
                """, [.blob(presentedHash)])
            guard let row = rotated.first else { return .invalid }
            var session = Self.session(from: row)
            guard !session.revoked else { return .invalid }
            try db.run("UPDATE sessions SET revoked = 1 WHERE id = ?", [.text(session.id)])
            session.revoked = true
            return .reused(session)
        }
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
