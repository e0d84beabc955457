import KuraAuth
import KuraCore
import KuraModel
import Synchronization
import Testing

/// The `AccountStore` contract for accounts, on every engine.
@Suite struct AccountStoreConformanceTests {
    static func account(_ uid: String, _ email: String? = nil) -> AccountRecord {
        let email = email ?? "\(uid)@example.com"
        return AccountRecord(
            uid: uid, email: email, emailKey: email.lowercased(), emailVerified: false, displayName: nil,
            passwordHash: "$argon2id$fake-\(uid)", disabled: false, customClaims: ["plan": "free"],
            createTime: 1_800_000_000_000_000, lastSignInTime: nil)
    }

    @Test(arguments: Engine.all)
    func accountsRoundTripByUIDAndEmailKey(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let store = try database.openAccounts()
        var ann = Self.account("ann", "Ann@Example.com")
        ann.displayName = "アン"
        ann.lastSignInTime = 1_800_000_000_000_001
        try store.insertAccount(ann)
        #expect(try store.account(uid: "ann") == ann)
        #expect(try store.account(emailKey: "ann@example.com") == ann)
        #expect(try store.account(uid: "nobody") == nil)
        #expect(try store.account(emailKey: "nobody@example.com") == nil)
    }

    @Test(arguments: Engine.all)
    func aSecondAccountWithTheSameAddressIsEmailExists(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let store = try database.openAccounts()
        try store.insertAccount(Self.account("ann"))
        try store.insertAccount(Self.account("bob"))
        #expect(throws: APIError.emailExists) { try store.insertAccount(Self.account("ann2", "ann@example.com")) }
        var bob = Self.account("bob", "ann@example.com")
        bob.disabled = true
        #expect(throws: APIError.emailExists) { try store.updateAccount(bob) }
        #expect(try store.account(uid: "bob")?.disabled == false)
    }

    @Test(arguments: Engine.all)
    func updateReplacesAndReportsMissingRows(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let store = try database.openAccounts()
        try store.insertAccount(Self.account("ann"))
        var ann = try #require(try store.account(uid: "ann"))
        ann.email = "ann@new.example"
        ann.emailKey = "ann@new.example"
        ann.emailVerified = true
        ann.customClaims = ["admin": true]
        #expect(try store.updateAccount(ann))
        #expect(try store.account(uid: "ann") == ann)
        #expect(try store.account(emailKey: "ann@example.com") == nil)
        #expect(try store.updateAccount(Self.account("ghost")) == false)
    }

    @Test(arguments: Engine.all)
    func deletingAnAccountDeletesItsSessionsAndCodes(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let store = try database.openAccounts()
        try store.insertAccount(Self.account("ann"))
        try store.insertSession(SessionConformanceTests.session("s1", uid: "ann"), refreshTokenHash: [1])
        try store.insertActionCode(
            ActionCodeRecord(hash: [9], kind: .passwordReset, uid: "ann", email: "ann@example.com", expireTime: 100))
        #expect(try store.deleteAccount(uid: "ann"))
        #expect(try store.account(uid: "ann") == nil)
        #expect(try store.session(id: "s1") == nil)
        #expect(try store.unusedActionCode(hash: [9]) == nil)
        #expect(try store.rotateRefreshToken(presentedHash: [1], newHash: [2], now: 0, reuseGrace: 0) == .invalid)
        #expect(try store.deleteAccount(uid: "ann") == false)
        // The address is free again.
        try store.insertAccount(Self.account("ann-again", "ann@example.com"))
    }

    @Test(arguments: Engine.all)
    func listingPagesInUIDOrder(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let store = try database.openAccounts()
        for uid in ["c", "a", "e", "b", "d"] { try store.insertAccount(Self.account(uid)) }
        #expect(try store.listAccounts(afterUID: nil, limit: 2).map(\.uid) == ["a", "b"])
        #expect(try store.listAccounts(afterUID: "b", limit: 2).map(\.uid) == ["c", "d"])
        #expect(try store.listAccounts(afterUID: "d", limit: 2).map(\.uid) == ["e"])
        #expect(try store.listAccounts(afterUID: "e", limit: 2).isEmpty)
    }

    @Test("listing by email-key prefix pages in byte order and stops at the prefix", arguments: Engine.all)
    func listingByEmailPrefix(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let store = try database.openAccounts()
        let addresses = [
            "ann@b.example", "anna@a.example", "an@c.example", "bob@a.example", "Ann-2@a.example", "am@x.example",
        ]
        for (i, address) in addresses.enumerated() { try store.insertAccount(Self.account("u\(i)", address)) }
        let ann = try store.listAccounts(emailKeyPrefix: "ann", after: nil, limit: 10).map(\.emailKey)
        #expect(ann == ["ann-2@a.example", "ann@b.example", "anna@a.example"])
        #expect(
            try store.listAccounts(emailKeyPrefix: "an", after: nil, limit: 2).map(\.emailKey) == [
                "an@c.example", "ann-2@a.example",
            ])
        #expect(
            try store.listAccounts(emailKeyPrefix: "an", after: "ann-2@a.example", limit: 2).map(\.emailKey) == [
                "ann@b.example", "anna@a.example",
            ])
        #expect(try store.listAccounts(emailKeyPrefix: "an", after: "anna@a.example", limit: 2).isEmpty)
        #expect(try store.listAccounts(emailKeyPrefix: "zz", after: nil, limit: 2).isEmpty)
        #expect(try store.listAccounts(emailKeyPrefix: "", after: nil, limit: 10).count == addresses.count)
    }

    @Test("two instances on one database see each other's writes", arguments: Engine.all)
    func instancesShareAccounts(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let first = try database.openAccounts()
        let second = try database.openAccounts()
        try first.insertAccount(Self.account("ann"))
        var ann = try #require(try second.account(uid: "ann"))
        ann.disabled = true
        try second.updateAccount(ann)
        #expect(try first.account(uid: "ann")?.disabled == true)
        #expect(throws: APIError.emailExists) { try second.insertAccount(Self.account("other", "ann@example.com")) }
        try second.deleteAccount(uid: "ann")
        #expect(try first.account(emailKey: "ann@example.com") == nil)
    }

    @Test("two instances creating one address at once: exactly one account", arguments: Engine.all)
    func concurrentSignUpsWithOneAddress(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let stores = [try database.openAccounts(), try database.openAccounts()]
        let outcomes = Mutex<[String]>([])
        concurrently(8) { index in
            do {
                try stores[index % 2].insertAccount(Self.account("uid\(index)", "same@example.com"))
                outcomes.withLock { $0.append("created") }
            } catch let error as APIError where error == .emailExists {
                outcomes.withLock { $0.append("exists") }
            } catch {
                outcomes.withLock { $0.append("\(error)") }
            }
        }
        #expect(outcomes.withLock { $0 }.sorted() == ["created"] + Array(repeating: "exists", count: 7))
        #expect(try stores[0].listAccounts(afterUID: nil, limit: 10).count == 1)
    }
}
