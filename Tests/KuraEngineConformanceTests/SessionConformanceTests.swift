import KuraAuth
import KuraCore
import KuraModel
import Synchronization
import Testing

/// The `AccountStore` contract for sessions (refresh-token families) and action codes, on every engine: one
/// instance alone, and several instances on one database as several nodes would use it.
@Suite struct SessionConformanceTests {
    static func session(_ id: String, uid: String) -> SessionRecord {
        SessionRecord(
            id: id, uid: uid, generation: 0, authTime: 1_800_000_000, createTime: 1_800_000_000_000_000,
            revoked: false)
    }

    /// A database with account `ann`, session `s1` whose refresh token hashes to `[1]`, and `instances` instances.
    static func setUp(_ engine: Engine, instances: Int = 1) throws -> (EngineDatabase, [any AccountStore]) {
        let database = try engine.makeDatabase()
        let stores = try (0..<instances).map { _ in try database.openAccounts() }
        try stores[0].insertAccount(AccountStoreConformanceTests.account("ann"))
        try stores[0].insertSession(session("s1", uid: "ann"), refreshTokenHash: [1])
        return (database, stores)
    }

    @Test(arguments: Engine.all)
    func rotationReplacesTheTokenAndCountsGenerations(engine: Engine) throws {
        let (database, stores) = try Self.setUp(engine)
        defer { database.drop() }
        let store = stores[0]
        #expect(try store.session(id: "s1") == Self.session("s1", uid: "ann"))
        guard
            case .rotated(let once) = try store.rotateRefreshToken(
                presentedHash: [1], newHash: [2], now: 10, reuseGrace: 0)
        else { Issue.record("the current token did not rotate"); return }
        #expect(once.generation == 1 && once.id == "s1" && !once.revoked)
        guard
            case .rotated(let twice) = try store.rotateRefreshToken(
                presentedHash: [2], newHash: [3], now: 20, reuseGrace: 0)
        else { Issue.record("the new token did not rotate"); return }
        #expect(twice.generation == 2)
        #expect(try store.session(id: "s1")?.generation == 2)
        #expect(try store.rotateRefreshToken(presentedHash: [99], newHash: [4], now: 30, reuseGrace: 0) == .invalid)
    }

    @Test("a spent token revokes its session; afterwards every token is invalid", arguments: Engine.all)
    func reuseRevokesTheFamily(engine: Engine) throws {
        let (database, stores) = try Self.setUp(engine)
        defer { database.drop() }
        let store = stores[0]
        _ = try store.rotateRefreshToken(presentedHash: [1], newHash: [2], now: 10, reuseGrace: 0)
        guard
            case .reused(let session) = try store.rotateRefreshToken(
                presentedHash: [1], newHash: [5], now: 11, reuseGrace: 0)
        else { Issue.record("reuse was not detected"); return }
        #expect(session.revoked && session.id == "s1")
        #expect(try store.session(id: "s1")?.revoked == true)
        #expect(try store.rotateRefreshToken(presentedHash: [2], newHash: [6], now: 12, reuseGrace: 0) == .invalid)
        #expect(try store.rotateRefreshToken(presentedHash: [1], newHash: [7], now: 13, reuseGrace: 0) == .invalid)
    }

    @Test("the token spent last gets the reuse grace once; the one issued in between gets none", arguments: Engine.all)
    func reuseGrace(engine: Engine) throws {
        let (database, stores) = try Self.setUp(engine)
        defer { database.drop() }
        let store = stores[0]
        _ = try store.rotateRefreshToken(presentedHash: [1], newHash: [2], now: 1000, reuseGrace: 500)
        // A retry of the lost answer within the grace: a new token, and [2] is spent.
        guard case .rotated = try store.rotateRefreshToken(presentedHash: [1], newHash: [3], now: 1400, reuseGrace: 500)
        else { Issue.record("the retry within the grace was refused"); return }
        guard case .reused = try store.rotateRefreshToken(presentedHash: [2], newHash: [4], now: 1401, reuseGrace: 500)
        else { Issue.record("the token issued in between still worked"); return }
        #expect(try store.session(id: "s1")?.revoked == true)
    }

    @Test(arguments: Engine.all)
    func reuseAfterTheGraceRevokes(engine: Engine) throws {
        let (database, stores) = try Self.setUp(engine)
        defer { database.drop() }
        let store = stores[0]
        _ = try store.rotateRefreshToken(presentedHash: [1], newHash: [2], now: 1000, reuseGrace: 500)
        guard case .reused = try store.rotateRefreshToken(presentedHash: [1], newHash: [3], now: 1501, reuseGrace: 500)
        else { Issue.record("reuse after the grace was not detected"); return }
    }

    @Test(arguments: Engine.all)
    func revokingSessions(engine: Engine) throws {
        let (database, stores) = try Self.setUp(engine)
        defer { database.drop() }
        let store = stores[0]
        try store.insertSession(Self.session("s2", uid: "ann"), refreshTokenHash: [2])
        try store.insertSession(Self.session("s3", uid: "ann"), refreshTokenHash: [3])
        try store.revokeSession(id: "s1")
        #expect(try store.rotateRefreshToken(presentedHash: [1], newHash: [11], now: 1, reuseGrace: 0) == .invalid)
        try store.revokeSessions(uid: "ann", except: "s3")
        #expect(try store.session(id: "s2")?.revoked == true)
        #expect(try store.session(id: "s3")?.revoked == false)
        try store.revokeSessions(uid: "ann", except: nil)
        #expect(try store.session(id: "s3")?.revoked == true)
        // Purging removes revoked sessions.
        #expect(try store.purge(now: 0) == 3)
        #expect(try store.session(id: "s3") == nil)
    }

    @Test("a refresh token spent through one instance is spent for the other", arguments: Engine.all)
    func spentTokensAreSharedByInstances(engine: Engine) throws {
        let (database, stores) = try Self.setUp(engine, instances: 2)
        defer { database.drop() }
        guard case .rotated = try stores[0].rotateRefreshToken(presentedHash: [1], newHash: [2], now: 10, reuseGrace: 0)
        else { Issue.record("no rotation"); return }
        guard case .reused = try stores[1].rotateRefreshToken(presentedHash: [1], newHash: [3], now: 11, reuseGrace: 0)
        else { Issue.record("the second instance took a spent token"); return }
        #expect(try stores[0].session(id: "s1")?.revoked == true)
        #expect(try stores[0].rotateRefreshToken(presentedHash: [2], newHash: [4], now: 12, reuseGrace: 0) == .invalid)
    }

    @Test("one token presented at once through two instances rotates exactly once", arguments: Engine.all)
    func concurrentRotationOfOneToken(engine: Engine) throws {
        let (database, stores) = try Self.setUp(engine, instances: 2)
        defer { database.drop() }
        let outcomes = Mutex<[String]>([])
        concurrently(8) { index in
            let outcome: String
            switch try? stores[index % 2].rotateRefreshToken(
                presentedHash: [1], newHash: [UInt8(100 + index)], now: 10, reuseGrace: 0)
            {
            case .rotated?: outcome = "rotated"
            case .reused?, .invalid?: outcome = "refused"
            case nil: outcome = "error"
            }
            outcomes.withLock { $0.append(outcome) }
        }
        #expect(outcomes.withLock { $0 }.sorted() == Array(repeating: "refused", count: 7) + ["rotated"])
    }

    // MARK: Action codes

    static func code(_ hash: [UInt8], _ kind: ActionCodeKind = .verifyEmail, expire: Int64 = 1000) -> ActionCodeRecord {
        ActionCodeRecord(hash: hash, kind: kind, uid: "ann", email: "ann@example.com", expireTime: expire)
    }

    @Test(arguments: Engine.all)
    func actionCodesAreSingleUseAndOfOneKind(engine: Engine) throws {
        let (database, stores) = try Self.setUp(engine)
        defer { database.drop() }
        let store = stores[0]
        try store.insertActionCode(Self.code([7], .passwordReset))
        #expect(try store.unusedActionCode(hash: [7]) == Self.code([7], .passwordReset))
        #expect(try store.consumeActionCode(hash: [7], kind: .verifyEmail, now: 10) == .invalid)
        #expect(
            try store.consumeActionCode(hash: [7], kind: .passwordReset, now: 10)
                == .consumed(Self.code([7], .passwordReset)))
        #expect(try store.consumeActionCode(hash: [7], kind: .passwordReset, now: 11) == .invalid)
        #expect(try store.unusedActionCode(hash: [7]) == nil)
        #expect(try store.consumeActionCode(hash: [8], kind: .passwordReset, now: 11) == .invalid)
    }

    @Test(arguments: Engine.all)
    func expiredCodesAndPurging(engine: Engine) throws {
        let (database, stores) = try Self.setUp(engine)
        defer { database.drop() }
        let store = stores[0]
        try store.insertActionCode(Self.code([1], expire: 100))
        try store.insertActionCode(Self.code([2], .changeEmail, expire: 200))
        #expect(try store.consumeActionCode(hash: [1], kind: .verifyEmail, now: 100) == .expired)
        // An expired code is still there, unused, until purged.
        #expect(try store.unusedActionCode(hash: [1])?.expireTime == 100)
        #expect(try store.purge(now: 150) == 1)
        #expect(try store.unusedActionCode(hash: [1]) == nil)
        #expect(try store.unusedActionCode(hash: [2])?.kind == .changeEmail)
    }

    @Test("an action code presented at once through two instances is consumed exactly once", arguments: Engine.all)
    func concurrentConsumption(engine: Engine) throws {
        let (database, stores) = try Self.setUp(engine, instances: 2)
        defer { database.drop() }
        try stores[0].insertActionCode(Self.code([5]))
        let consumed = Mutex(0)
        let invalid = Mutex(0)
        concurrently(8) { index in
            switch try? stores[index % 2].consumeActionCode(hash: [5], kind: .verifyEmail, now: 10) {
            case .consumed?: consumed.withLock { $0 += 1 }
            case .invalid?: invalid.withLock { $0 += 1 }
            default: break
            }
        }
        #expect(consumed.withLock { $0 } == 1)
        #expect(invalid.withLock { $0 } == 7)
        #expect(try stores[1].unusedActionCode(hash: [5]) == nil)
    }
}
