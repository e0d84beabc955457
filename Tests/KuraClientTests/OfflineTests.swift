import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

@testable import KuraClient

/// Offline persistence: the cache, the durable write queue, exactly-once delivery.
@Suite struct OfflineTests {
    func offlineClient(_ server: TestKura, cache: URL) async throws -> (Kura, String) {
        try await signedInClient(server, settings: .init(persistence: .file(cache), session: .memory))
    }

    @Test func writesMadeOfflineApplyOnceAndInOrderWhenTheServerIsBack() async throws {
        try await withServer { server in
            let cache = temporaryFile("cache.sqlite")
            defer { removeDatabase(cache) }
            let (kura, uid) = try await offlineClient(server, cache: cache)
            let counter = kura.document("users/\(uid)/state/counter")
            let log = kura.document("users/\(uid)/state/log")
            try await counter.setData(["n": 0])
            #expect(kura.pendingWriteCount == 0)

            await server.stopOffPool()
            // Each call returns once its write is queued; nothing reaches the server.
            try await counter.updateData(["n": FieldValue.increment(1)])
            try await log.setData(["order": ["first"]])
            try await counter.updateData(["n": FieldValue.increment(1)])
            try await log.updateData(["order": FieldValue.arrayUnion(["second"])])
            let added = try await kura.collection("users/\(uid)/todos").addDocument(data: ["title": "milk"])
            let batch = kura.batch()
            batch.updateData(["n": FieldValue.increment(1)], forDocument: counter)
            batch.updateData(["order": FieldValue.arrayUnion(["third"]), "last": true], forDocument: log)
            try await batch.commit()
            #expect(kura.pendingWriteCount == 6)

            // Reads answer from the cache, with the queued writes applied.
            let local = try await counter.getDocument()
            #expect(local["n"] == 3)
            #expect(local.metadata == SnapshotMetadata(isFromCache: true, hasPendingWrites: true))
            #expect(try await log.getDocument()["order"] == ["first", "second", "third"])
            let todos = try await kura.collection("users/\(uid)/todos").getDocuments()
            #expect(todos.documents.map(\.documentID) == [added.documentID])
            #expect(todos.metadata.isFromCache)

            try await server.startOffPool()
            try await kura.waitForPendingWrites()
            #expect(try await server.document(counter.path)?["n"] as? Int == 3)
            #expect(try await server.document(log.path)?["order"] as? [String] == ["first", "second", "third"])
            #expect(try await server.document(log.path)?["last"] as? Bool == true)
            #expect(try await server.document(added.path)?["title"] as? String == "milk")
            // Each document was written exactly as many times as writes were queued for it.
            #expect(try await server.documentJSON(counter.path)?["version"] as? Int == 4)
            #expect(try await server.documentJSON(log.path)?["version"] as? Int == 3)
            let fresh = try await counter.getDocument()
            #expect(fresh.metadata == SnapshotMetadata(isFromCache: false, hasPendingWrites: false))
            // The receipts that proved each write are cleaned up.
            #expect(await eventually { (try? await kura.collection("users/\(uid)/_kura_receipts").count()) == 0 })
        }
    }

    @Test func queuedWritesSurviveAnAppRestart() async throws {
        try await withServer { server in
            let cache = temporaryFile("cache.sqlite")
            defer { removeDatabase(cache) }
            let session = temporaryFile("session.json")
            defer { try? FileManager.default.removeItem(at: session) }
            let settings = Kura.Settings(persistence: .file(cache), session: .file(session))
            var (kura, uid) = try await signedInClient(server, settings: settings)
            let document = kura.document("users/\(uid)/notes/n")
            try await document.setData(["text": "online"])
            _ = try await document.getDocument()
            await server.stopOffPool()
            try await document.setData(["text": "offline"], merge: true)
            try await document.updateData(["edits": FieldValue.increment(1)])
            kura = Kura(url: server.url, settings: settings)  // the app is relaunched while offline
            #expect(kura.pendingWriteCount == 2)
            #expect(try await kura.document("users/\(uid)/notes/n").getDocument()["text"] == "offline")
            try await server.startOffPool()
            try await kura.waitForPendingWrites()
            let stored = try #require(try await server.document("users/\(uid)/notes/n"))
            #expect(stored["text"] as? String == "offline")
            #expect(stored["edits"] as? Int == 1)
        }
    }

    @Test(arguments: [1, 3])
    func aLostAcknowledgementDoesNotApplyTwice(lost: Int) async throws {
        try await withServer { server in
            let cache = temporaryFile("cache.sqlite")
            defer { removeDatabase(cache) }
            let (kura, uid) = try await offlineClient(server, cache: cache)
            let counter = kura.document("users/\(uid)/state/counter")
            try await counter.setData(["n": 0])
            // The server applies the commit, but its answer is lost (`lost` times in a row): the client cannot
            // tell, keeps the write queued and sends it again; the receipt makes the repeats fail harmlessly.
            kura.transport.lostAnswers.withLock { $0["/api/commit"] = lost }
            try await counter.updateData(["n": FieldValue.increment(1)])
            try await kura.waitForPendingWrites()
            #expect(try await server.document(counter.path)?["n"] as? Int == 1)
            #expect(try await server.documentJSON(counter.path)?["version"] as? Int == 2)
            // The same for a new document with an automatic ID (its own receipt).
            kura.transport.lostAnswers.withLock { $0["/api/commit"] = lost }
            try await kura.collection("users/\(uid)/todos").addDocument(data: ["title": "once"])
            try await kura.waitForPendingWrites()
            #expect(try await kura.collection("users/\(uid)/todos").count() == 1)
        }
    }

    @Test func withoutReceiptsALostAcknowledgementAppliesTwice() async throws {
        // The control for the test above: the receipt is what prevents the duplicate.
        try await withServer { server in
            let cache = temporaryFile("cache.sqlite")
            defer { removeDatabase(cache) }
            let (kura, uid) = try await signedInClient(
                server, settings: .init(persistence: .file(cache), session: .memory, writeReceipts: nil))
            let counter = kura.document("users/\(uid)/state/counter")
            try await counter.setData(["n": 0])
            kura.transport.lostAnswers.withLock { $0["/api/commit"] = 1 }
            try await counter.updateData(["n": FieldValue.increment(1)])
            try await kura.waitForPendingWrites()
            #expect(try await server.document(counter.path)?["n"] as? Int == 2)
        }
    }

    @Test func refusedQueuedWritesAreDroppedAndReported() async throws {
        try await withServer { server in
            let cache = temporaryFile("cache.sqlite")
            defer { removeDatabase(cache) }
            let (kura, uid) = try await offlineClient(server, cache: cache)
            let (_, other) = try await signedInClient(server)
            // Online, a refusal is thrown at once and nothing stays queued.
            let denied = await #expect(throws: KuraError.self) {
                try await kura.document("users/\(other)/x/y").setData(["a": 1])
            }
            #expect(denied?.code == .permissionDenied)
            let missing = await #expect(throws: KuraError.self) {
                try await kura.document("users/\(uid)/x/none").updateData(["a": 1])
            }
            #expect(missing?.code == .notFound)
            #expect(kura.pendingWriteCount == 0)

            // Offline, it is queued, then dropped and reported when the server refuses it; later writes still go
            // through.
            let rejections = Collector(kura.rejectedWrites)
            defer { rejections.cancel() }
            await server.stopOffPool()
            try await kura.document("users/\(other)/x/y").setData(["a": 1])
            try await kura.document("users/\(uid)/x/ok").setData(["a": 2])
            try await server.startOffPool()
            try await kura.waitForPendingWrites()
            #expect(try await server.document("users/\(other)/x/y") == nil)
            #expect(try await server.document("users/\(uid)/x/ok")?["a"] as? Int == 2)
            let rejected = try await rejections.wait(forCount: 1)
            #expect(rejected.map(\.paths) == [["users/\(other)/x/y"]])
            #expect(rejected.first?.error.code == .permissionDenied)
            // It no longer shows in local reads: the cache knows nothing of the document.
            await #expect(throws: KuraError.self) {
                try await kura.document("users/\(other)/x/y").getDocument(source: .cache)
            }
        }
    }

    @Test func cacheOnlyReadsAndUncachedDocuments() async throws {
        try await withServer { server in
            let cache = temporaryFile("cache.sqlite")
            defer { removeDatabase(cache) }
            let (kura, uid) = try await offlineClient(server, cache: cache)
            let items = kura.collection("users/\(uid)/items")
            for n in 0..<5 { try await items.document("i\(n)").setData(["n": .init(n), "even": .bool(n % 2 == 0)]) }
            _ = try await items.getDocuments()  // cached from the server
            await server.stopOffPool()
            let evens = try await items.whereField("even", isEqualTo: true).order(by: "n", descending: true)
                .getDocuments()
            #expect(evens.documents.map(\.documentID) == ["i4", "i2", "i0"])
            #expect(evens.metadata.isFromCache)
            let page = try await items.order(by: "n").start(after: [1]).limit(to: 2).getDocuments()
            #expect(page.documents.map(\.documentID) == ["i2", "i3"])
            try await items.document("i1").delete()
            #expect(try await items.getDocuments(source: .cache).count == 4)
            #expect(try await items.document("i1").getDocument().exists == false)
            let uncached = await #expect(throws: KuraError.self) {
                try await kura.document("users/\(uid)/other/never-read").getDocument()
            }
            #expect(uncached?.code == .unavailable)
            try await server.startOffPool()
            try await kura.waitForPendingWrites()
            #expect(try await items.getDocuments(source: .server).count == 4)
        }
    }
}

extension OfflineTests {
    @Test func anUnusableCacheFileIsReportedAndTheCacheLivesInMemory() async throws {
        try await withServer { server in
            // A directory stands where the database file should be.
            let directory = temporaryFile("not-a-file")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let (kura, uid) = try await signedInClient(
                server, settings: .init(persistence: .file(directory), session: .memory))
            #expect(kura.persistenceError != nil)
            let document = kura.document("users/\(uid)/x/y")
            try await document.setData(["a": 1])
            await server.stopOffPool()
            #expect(try await document.getDocument()["a"] == 1)
            #expect(!FileManager.default.fileExists(atPath: ":memory:"))
        }
    }
}

/// Listeners with persistence: queued writes show at once, the cache answers while the server is away.
@Suite struct OfflineListenerTests {
    @Test func listenersShowQueuedWritesAndResumeWhenTheServerIsBack() async throws {
        try await withServer { server in
            let cache = temporaryFile("cache.sqlite")
            defer { removeDatabase(cache) }
            let (kura, uid) = try await signedInClient(
                server, settings: .init(persistence: .file(cache), session: .memory))
            let todos = kura.collection("users/\(uid)/todos")
            try await todos.document("a").setData(["title": "online", "n": 1])
            // With metadata changes: the acknowledgement (`hasPendingWrites` turning false) changes no document.
            let listener = Collector(todos.order(by: "n").snapshots(includeMetadataChanges: true))
            defer { listener.cancel() }
            try await listener.wait { $0.count == 1 && !$0.metadata.isFromCache }

            await server.stopOffPool()
            try await todos.document("b").setData(["title": "offline", "n": 2])
            // Shown at once, marked as not yet acknowledged. The first snapshot that shows it: a metadata-only one
            // (`isFromCache` turning true as the stream notices the server is gone) may follow it at any moment.
            _ = try await listener.wait { $0.count == 2 }
            let local = try #require(listener.items.first { $0.count == 2 })
            #expect(local.metadata.hasPendingWrites)
            #expect(local.documentChanges.map(\.type) == [.added])
            #expect(local.documents.map(\.documentID) == ["a", "b"])

            try await server.startOffPool()
            let synced = try await listener.wait(timeout: .seconds(20)) {
                $0.count == 2 && !$0.metadata.hasPendingWrites && !$0.metadata.isFromCache
            }
            #expect(synced.documents[1]["title"] == "offline")
            #expect(try await server.document("users/\(uid)/todos/b")?["title"] as? String == "offline")
            // "b" was added once; later snapshots only confirmed it.
            let adds = listener.items.flatMap(\.documentChanges).filter { $0.type == .added }.map(\.document.documentID)
            #expect(
                adds == ["a", "b"],
                "\(listener.items.map { snapshot in "\(snapshot.metadata): \(snapshot.documentChanges.map { "\($0.type) \($0.document.documentID) v\($0.document.version)" })" })"
            )
        }
    }

    @Test func aListenerStartedOfflineShowsTheCache() async throws {
        try await withServer { server in
            let cache = temporaryFile("cache.sqlite")
            defer { removeDatabase(cache) }
            let (kura, uid) = try await signedInClient(
                server, settings: .init(persistence: .file(cache), session: .memory))
            let todos = kura.collection("users/\(uid)/todos")
            try await todos.document("a").setData(["title": "cached"])
            _ = try await todos.getDocuments()
            await server.stopOffPool()
            // With metadata changes: the server's answer (`isFromCache` turning false) changes no document.
            let listener = Collector(todos.snapshots(includeMetadataChanges: true))
            defer { listener.cancel() }
            let snapshot = try await listener.wait { $0.count == 1 }
            #expect(snapshot.metadata.isFromCache)
            #expect(snapshot.documents.first?["title"] == "cached")
            let document = Collector(todos.document("a").snapshots())
            defer { document.cancel() }
            #expect(try await document.wait { $0.exists }.metadata.isFromCache)
            try await server.startOffPool()
            try await listener.wait(timeout: .seconds(20)) { !$0.metadata.isFromCache }
        }
    }

    /// At every moment a write is in the queue or among the acknowledged-but-unconfirmed writes, which together
    /// are what listeners lay over the server's view: checked at the moment its entry leaves the queue. (It used
    /// to be in neither for that instant, so a listener whose view was computed then showed "b" vanish and come
    /// back: removed and added again.)
    @Test func anAcknowledgedWriteIsAlwaysQueuedOrUnconfirmed() async throws {
        try await withServer { server in
            let cache = temporaryFile("cache.sqlite")
            defer { removeDatabase(cache) }
            let (kura, uid) = try await signedInClient(
                server, settings: .init(persistence: .file(cache), session: .memory))
            let offline = try #require(kura.offline)
            let path = "users/\(uid)/todos/b"
            let seen = Shared<[Bool]>([])
            atEachDequeue(offline) { writes in seen.withLock { $0.append(writes.contains { $0.path == path }) } }
            try await kura.collection("users/\(uid)/todos").document("b").setData(["n": 1])
            offline.state.withLock { $0.afterDequeue = nil }
            #expect(seen.current == [true])
        }
    }

    /// Several acknowledged writes to one document all stay laid over a view that has not seen them: three queued
    /// increments acknowledged one after the other show 3 until the stream delivers the server's version. (Only a
    /// path's last acknowledged write used to be kept, so such a view went 3, 2, 1, then 3 again.)
    @Test func everyAcknowledgedWriteToOneDocumentStaysUnconfirmed() async throws {
        try await withServer { server in
            let cache = temporaryFile("cache.sqlite")
            defer { removeDatabase(cache) }
            let (kura, uid) = try await signedInClient(
                server, settings: .init(persistence: .file(cache), session: .memory))
            let offline = try #require(kura.offline)
            let counter = kura.document("users/\(uid)/state/counter")
            try await counter.setData(["n": 0])
            let path = counter.path
            let counts = Shared<[Int]>([])
            await server.stopOffPool()
            for _ in 0..<3 { try await counter.updateData(["n": FieldValue.increment(1)]) }
            atEachDequeue(offline) { writes in
                let increments = writes.filter {
                    guard case .update = $0.operation else { return false }
                    return $0.path == path
                }
                counts.withLock { $0.append(increments.count) }
            }
            try await server.startOffPool()
            try await kura.waitForPendingWrites()
            offline.state.withLock { $0.afterDequeue = nil }
            #expect(counts.current == [3, 3, 3])
        }
    }

    /// Calls `record`, each time an acknowledged entry has just left the queue, with the writes a listener lays over
    /// a server view that has seen none of them: what `ListenerHub.publish` reads, in its order (queue first).
    private func atEachDequeue(_ offline: OfflineStore, _ record: @escaping @Sendable ([Write]) -> Void) {
        offline.state.withLock { state in
            state.afterDequeue = { [weak offline] in
                guard let offline else { return }
                let queue = (try? offline.entries()) ?? []
                let unconfirmed = offline.unconfirmedWrites(
                    covering: { _ in true }, serverView: [], queued: Set(queue.map(\.sequence)))
                record(queue.flatMap(\.writes) + unconfirmed)
            }
        }
    }
}
