import KuraAuth
import KuraCore
import KuraModel
import Synchronization
import Testing

/// The `SigningKeyStore` contract on every engine: one first key however many nodes start at once, rotations seen
/// by every instance, none lost when two happen at once.
@Suite struct SigningKeyStoreConformanceTests {
    static func key(_ byte: UInt8, _ time: Int64 = 1_800_000_000) -> StoredSigningKey {
        StoredSigningKey(seed: Array(repeating: byte, count: 32), createTime: time)
    }

    @Test(arguments: Engine.all)
    func theFirstKeyIsStoredOnceAndKept(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let store = try database.openSigningKeys()
        #expect(try store.load() == [])
        #expect(try store.loadOrCreate(initial: Self.key(1)) == [Self.key(1)])
        #expect(try store.loadOrCreate(initial: Self.key(2)) == [Self.key(1)])
        // Another instance (a restart, or a second node) finds it.
        let other = try database.openSigningKeys()
        #expect(try other.loadOrCreate(initial: Self.key(3)) == [Self.key(1)])
        #expect(try other.load() == [Self.key(1)])
    }

    @Test("nodes starting at once agree on one first key", arguments: Engine.all)
    func concurrentFirstStarts(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let stores = try (0..<6).map { _ in try database.openSigningKeys() }
        let results = Mutex<[[StoredSigningKey]]>([])
        concurrently(6) { index in
            let keys = (try? stores[index].loadOrCreate(initial: Self.key(UInt8(10 + index)))) ?? []
            results.withLock { $0.append(keys) }
        }
        let all = results.withLock { $0 }
        #expect(all.count == 6)
        #expect(all.allSatisfy { $0.count == 1 && $0 == all[0] })
        #expect(try stores[0].load() == all[0])
    }

    @Test(arguments: Engine.all)
    func rotationPutsTheNewKeyFirstAndKeepsTheRetention(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let store = try database.openSigningKeys()
        _ = try store.loadOrCreate(initial: Self.key(1))
        #expect(try store.rotate(to: Self.key(2), retaining: 2) == [Self.key(2), Self.key(1)])
        #expect(try store.rotate(to: Self.key(3), retaining: 2) == [Self.key(3), Self.key(2), Self.key(1)])
        #expect(try store.rotate(to: Self.key(4), retaining: 2) == [Self.key(4), Self.key(3), Self.key(2)])
        #expect(try store.rotate(to: Self.key(5), retaining: 0) == [Self.key(5)])
        #expect(try store.load() == [Self.key(5)])
    }

    @Test("a rotation through one instance is what the other loads", arguments: Engine.all)
    func rotationsAreShared(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let first = try database.openSigningKeys()
        let second = try database.openSigningKeys()
        _ = try first.loadOrCreate(initial: Self.key(1))
        _ = try second.rotate(to: Self.key(2), retaining: 3)
        #expect(try first.load() == [Self.key(2), Self.key(1)])
        _ = try first.rotate(to: Self.key(3), retaining: 3)
        #expect(try second.load() == [Self.key(3), Self.key(2), Self.key(1)])
    }

    @Test("rotations at once through two instances all land", arguments: Engine.all)
    func concurrentRotations(engine: Engine) throws {
        let database = try engine.makeDatabase()
        defer { database.drop() }
        let stores = [try database.openSigningKeys(), try database.openSigningKeys()]
        _ = try stores[0].loadOrCreate(initial: Self.key(1))
        let failures = Mutex(0)
        concurrently(10) { index in
            if (try? stores[index % 2].rotate(to: Self.key(UInt8(100 + index)), retaining: 50)) == nil {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        let keys = try stores[1].load()
        #expect(keys.count == 11)
        #expect(Set(keys.map(\.seed)) == Set((0..<10).map { Self.key(UInt8(100 + $0)).seed } + [Self.key(1).seed]))
        #expect(keys.last == Self.key(1))
    }
}
