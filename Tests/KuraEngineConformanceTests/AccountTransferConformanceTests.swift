import Foundation
import KuraAuth
import KuraCore
import KuraModel
import Testing

/// `AccountTransfer` (what `kura export` / `kura import` use) on every engine: a snapshot that later writes do not
/// change, byte-ordered pages, accounts stored exactly, and batches that are all or nothing.
@Suite struct AccountTransferConformanceTests {
    static func account(_ uid: String, _ email: String, claims: JSONObject = JSONObject()) -> AccountRecord {
        AccountRecord(
            uid: uid, email: email, emailKey: email.lowercased(), emailVerified: uid.hasPrefix("A"),
            displayName: uid == "b" ? nil : "Name \(uid)", passwordHash: "$argon2id$v=19$m=8,t=1,p=1$c2FsdA$\(uid)",
            disabled: uid == "b", customClaims: claims, createTime: 1_700_000_000_000_001,
            lastSignInTime: uid == "b" ? nil : 1_700_000_000_500_000)
    }

    static let accounts = [
        account("a", "ann@example.com", claims: ["role": "editor", "n": 1.0]), account("A", "Bob@example.com"),
        account("b", "cy@example.com"), account("a-1", "dee@example.com"),
    ]

    /// Every account of `store`, in pages of `page`.
    static func all(_ snapshot: any AccountSnapshot, page: Int = 2) throws -> [AccountRecord] {
        var found: [AccountRecord] = []
        while case let next = try snapshot.accounts(afterUID: found.last?.uid, limit: page), !next.isEmpty {
            found += next
        }
        return found
    }

    static func transfer(_ store: any AccountStore) throws -> any AccountTransfer {
        try #require(store as? any AccountTransfer)
    }

    @Test("a snapshot lists every account by uid bytes and does not see later writes", arguments: Engine.all)
    func snapshot(_ engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let store = try database.openAccounts()
        for account in Self.accounts { try store.insertAccount(account) }
        let other = try database.openAccounts()
        try Self.transfer(store).withAccountSnapshot { snapshot in
            #expect(try snapshot.accountCount() == 4)
            try other.insertAccount(Self.account("0", "late@example.com"))
            try other.deleteAccount(uid: "b")
            let listed = try Self.all(snapshot)
            #expect(listed.map(\.uid) == ["A", "a", "a-1", "b"])  // "A" < "a" < "a-1" < "b" as bytes
            #expect(listed == Self.accounts.sorted { $0.uid.utf8.lexicographicallyPrecedes($1.uid.utf8) })
        }
        #expect(try Self.transfer(store).withAccountSnapshot { try $0.accountCount() } == 4)
    }

    @Test(
        "imported accounts are stored exactly; a batch with a taken uid or address stores nothing",
        arguments: Engine.all)
    func importing(_ engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let store = try database.openAccounts()
        let transfer = try Self.transfer(store)
        try transfer.importAccounts(Self.accounts, replacing: false)
        for account in Self.accounts { #expect(try store.account(uid: account.uid) == account) }

        let fresh = Self.account("c", "eve@example.com")
        #expect {
            try transfer.importAccounts([fresh, Self.account("a", "new@example.com")], replacing: false)
        } throws: { ($0 as? APIError)?.code == .alreadyExists }
        #expect {
            try transfer.importAccounts([fresh, Self.account("d", "ann@example.com")], replacing: false)
        } throws: { ($0 as? APIError)?.code == .emailExists }
        #expect(try store.account(uid: "c") == nil)
        transfer.withAccountSnapshotCount { #expect($0 == 4) }

        // Replacing: the account is overwritten and its sessions go.
        try store.insertSession(
            SessionRecord(id: "s1", uid: "a", generation: 0, authTime: 1, createTime: 1, revoked: false),
            refreshTokenHash: [1, 2, 3])
        var changed = Self.account("a", "ann@example.com")
        changed.passwordHash = "$argon2id$v=19$m=8,t=1,p=1$c2FsdA$changed"
        try transfer.importAccounts([changed, fresh], replacing: true)
        #expect(try store.account(uid: "a") == changed)
        #expect(try store.account(uid: "c") == fresh)
        #expect(try store.session(id: "s1") == nil)
    }
}

extension AccountTransfer {
    /// Calls `check` with the number of accounts now.
    fileprivate func withAccountSnapshotCount(_ check: (Int64) -> Void) {
        do { check(try withAccountSnapshot { try $0.accountCount() }) } catch {
            Issue.record("counting accounts failed: \(error)")
        }
    }
}
