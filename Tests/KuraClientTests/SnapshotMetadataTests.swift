import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

@testable import KuraClient

/// Snapshot metadata as Firestore reports it: per-document `hasPendingWrites`, `isFromCache` when a listener's
/// stream drops, metadata-only snapshots only with `includeMetadataChanges`. The sequences of
/// Tests/Cases/snapshot-metadata.json run here as they are written.
@Suite struct SnapshotMetadataTests {
    /// What a listener saw, in the case file's terms.
    struct Seen: Equatable, CustomStringConvertible {
        var docs: [String]
        var fromCache: Bool
        var hasPendingWrites: Bool
        /// `nil`: not compared (document listeners, or left out of the case).
        var changes: [String]?

        init(_ snapshot: QuerySnapshot) {
            docs = snapshot.documents.map {
                "\($0.documentID)=\($0["n"]?.intValue ?? -1)\($0.metadata.hasPendingWrites ? "*" : "")"
            }
            fromCache = snapshot.metadata.isFromCache
            hasPendingWrites = snapshot.metadata.hasPendingWrites
            changes = snapshot.documentChanges.map { "\($0.type.rawValue) \($0.document.documentID)" }
        }

        init(_ snapshot: DocumentSnapshot) {
            docs =
                snapshot.exists
                ? [
                    "\(snapshot.documentID)=\(snapshot["n"]?.intValue ?? -1)\(snapshot.metadata.hasPendingWrites ? "*" : "")"
                ]
                : []
            fromCache = snapshot.metadata.isFromCache
            hasPendingWrites = snapshot.metadata.hasPendingWrites
        }

        init(json: [String: Any]) {
            docs = json["docs"] as? [String] ?? []
            fromCache = json["fromCache"] as? Bool ?? false
            hasPendingWrites = json["hasPendingWrites"] as? Bool ?? false
            changes = json["changes"] as? [String]
        }

        /// Equal, comparing changes only where the expectation names them.
        func matches(_ expected: Seen) -> Bool {
            docs == expected.docs && fromCache == expected.fromCache && hasPendingWrites == expected.hasPendingWrites
                && (expected.changes == nil || changes == expected.changes)
        }

        var description: String {
            "\(docs) fromCache=\(fromCache) pending=\(hasPendingWrites)\(changes.map { " \($0)" } ?? "")"
        }
    }

    static let caseFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Cases/snapshot-metadata.json")

    static var caseNames: [String] {
        guard let data = try? Data(contentsOf: caseFile),
            let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let cases = root["cases"] as? [[String: Any]]
        else { return ["(Tests/Cases/snapshot-metadata.json is missing)"] }
        return cases.compactMap { $0["name"] as? String }
    }

    @Test(arguments: caseNames)
    func caseFileSequence(_ name: String) async throws {
        let root = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: Self.caseFile)) as? [String: Any])
        let spec = try #require((root["cases"] as? [[String: Any]])?.first { $0["name"] as? String == name })
        try await withServer { server in
            let cache = temporaryFile("cache.sqlite")
            defer { removeDatabase(cache) }
            let persistence = spec["persistence"] as? Bool ?? false
            let (kura, uid) = try await signedInClient(
                server,
                settings: persistence ? .init(persistence: .file(cache), session: .memory) : .init(session: .memory))
            let items = kura.collection("users/\(uid)/items")
            for (id, n) in (spec["initial"] as? [String: Int] ?? [:]).sorted(by: { $0.key < $1.key }) {
                try await items.document(id).setData(["n": .init(n)])
            }
            let plain: () -> [Seen]
            let withMetadata: () -> [Seen]
            let stop: () -> Void
            if spec["listen"] as? String == "query" {
                let a = Collector(items.order(by: "id").snapshots())
                let b = Collector(items.order(by: "id").snapshots(includeMetadataChanges: true))
                (plain, withMetadata) = ({ a.items.map(Seen.init) }, { b.items.map(Seen.init) })
                stop = {
                    a.cancel()
                    b.cancel()
                }
            } else {
                let document = items.document(try #require(spec["listen"] as? String))
                let a = Collector(document.snapshots())
                let b = Collector(document.snapshots(includeMetadataChanges: true))
                (plain, withMetadata) = ({ a.items.map(Seen.init) }, { b.items.map(Seen.init) })
                stop = {
                    a.cancel()
                    b.cancel()
                }
            }
            defer { stop() }
            for step in spec["steps"] as? [[String: Any]] ?? [] {
                if let until = step["until"] as? [String: Any] {
                    let expected = Seen(json: until)
                    let held = await eventually(timeout: .seconds(30)) {
                        withMetadata().last?.matches(expected) ?? false
                    }
                    try #require(held, "waited for \(expected); saw \(withMetadata())")
                } else if let id = step["set"] as? String {
                    try await items.document(id).setData(["n": .init(step["n"] as? Int ?? 0)])
                } else if step["stop"] != nil {
                    await server.stopOffPool()
                } else if step["start"] != nil {
                    try await server.startOffPool()
                }
            }
            for (key, seen) in [("default", plain), ("metadata", withMetadata)] {
                guard let sequence = spec[key] as? [[String: Any]] else { continue }
                let expected = sequence.map(Seen.init(json:))
                // The other listener's snapshots of the last step may still be on their way.
                _ = await eventually { seen().count >= expected.count }
                let actual = seen()
                #expect(
                    actual.count == expected.count && zip(actual, expected).allSatisfy { $0.matches($1) },
                    "\(key): expected \(expected), saw \(actual)")
            }
        }
    }

    @Test func onlyTheWrittenDocumentsHavePendingWrites() async throws {
        try await withServer { server in
            let cache = temporaryFile("cache.sqlite")
            defer { removeDatabase(cache) }
            let (kura, uid) = try await signedInClient(
                server, settings: .init(persistence: .file(cache), session: .memory))
            let items = kura.collection("users/\(uid)/items")
            for id in ["a", "b", "c"] { try await items.document(id).setData(["n": 0]) }
            let listener = Collector(items.order(by: "id").snapshots())
            defer { listener.cancel() }
            try await listener.wait { $0.count == 3 && !$0.metadata.isFromCache }

            await server.stopOffPool()
            try await items.document("b").updateData(["n": 1])
            let snapshot = try await listener.wait { $0.metadata.hasPendingWrites }
            #expect(snapshot.documents.map(\.metadata.hasPendingWrites) == [false, true, false])
            #expect(snapshot.documentChanges.map(\.document.metadata.hasPendingWrites) == [true])
            // Offline reads say the same.
            let read = try await items.order(by: "id").getDocuments()
            #expect(read.metadata == SnapshotMetadata(isFromCache: true, hasPendingWrites: true))
            #expect(read.documents.map(\.metadata.hasPendingWrites) == [false, true, false])
            #expect(read.documents.allSatisfy { $0.metadata.isFromCache })
            #expect(try await items.document("a").getDocument().metadata.hasPendingWrites == false)
            #expect(try await items.document("b").getDocument().metadata.hasPendingWrites == true)
            try await server.startOffPool()
            try await kura.waitForPendingWrites()
            let online = try await items.order(by: "id").getDocuments()
            #expect(online.documents.map(\.metadata.hasPendingWrites) == [false, false, false])
        }
    }
}

/// The offline queue keeps a write the server did not apply for contention, and sends it again.
@Suite struct QueueContentionTests {
    @Test func queuedWritesMeetingContentionStayQueuedAndAreRetried() async throws {
        try await withServer { server in
            let cache = temporaryFile("cache.sqlite")
            defer { removeDatabase(cache) }
            let (kura, uid) = try await signedInClient(
                server, settings: .init(persistence: .file(cache), session: .memory))
            let counter = kura.document("users/\(uid)/state/counter")
            try await counter.setData(["n": 0])
            let rejections = Collector(kura.rejectedWrites)
            defer { rejections.cancel() }
            let listener = Collector(counter.snapshots())
            defer { listener.cancel() }
            try await listener.wait { $0["n"] == 0 && !$0.metadata.isFromCache }

            await server.stopOffPool()
            for _ in 0..<3 { try await counter.updateData(["n": FieldValue.increment(1)]) }
            #expect(kura.pendingWriteCount == 3)
            try await listener.wait { $0["n"] == 3 }
            // The next two attempts are answered as a busy server answers them, without applying anything.
            kura.transport.refusals.withLock {
                $0["/api/commit"] = [
                    KuraError(.aborted, "the documents kept changing; retry", status: 409),
                    KuraError(.resourceExhausted, "too many writes at once", status: 429),
                ]
            }
            try await server.startOffPool()
            try await kura.waitForPendingWrites()
            #expect(kura.transport.refusals.current["/api/commit"]?.isEmpty == true)
            #expect(try await server.document(counter.path)?["n"] as? Int == 3)
            #expect(rejections.items.isEmpty)
            // The local view never lost a queued write. (It can briefly show one twice: when the stream delivers
            // the server's version with an entry applied before that entry's acknowledgement arrives, the entry is
            // still in the queue and laid over it too.)
            try await listener.wait { $0["n"] == 3 }
            let values = listener.items.compactMap { $0["n"]?.intValue }
            let firstThree = try #require(values.firstIndex(of: 3))
            #expect(values[firstThree...].allSatisfy { $0 >= 3 }, "\(values)")

            // Online, the caller waits through the retries instead of getting ABORTED.
            kura.transport.refusals.withLock {
                $0["/api/commit"] = [KuraError(.aborted, "the documents kept changing; retry", status: 409)]
            }
            try await counter.updateData(["n": FieldValue.increment(1)])
            #expect(try await server.document(counter.path)?["n"] as? Int == 4)
            #expect(kura.pendingWriteCount == 0)
        }
    }
}

/// Errors bridge to `NSError` in Firebase's domains: Auth calls in Auth's, every other call in Firestore's.
@Suite struct ErrorDomainTests {
    @Test func firestoreAndAuthCallsReportTheirDomains() async throws {
        try await withServer { server in
            let cache = temporaryFile("cache.sqlite")
            defer { removeDatabase(cache) }
            let (kura, uid) = try await signedInClient(
                server, settings: .init(persistence: .file(cache), session: .memory))
            let document = kura.document("users/\(uid)/x/y")
            try await document.setData(["a": 1])
            let email = try #require(kura.auth.currentUser?.email)
            let taken: any Error = try #require(
                await #expect(throws: KuraError.self) {
                    try await makeClient(server).auth.createUser(withEmail: email, password: "secret-pw")
                })
            #expect((taken as NSError).domain == "FIRAuthErrorDomain")
            #expect((taken as NSError).code == AuthErrorCode.emailAlreadyInUse.rawValue)
            let denied: any Error = try #require(
                await #expect(throws: KuraError.self) { try await kura.document("elsewhere/doc").getDocument() })
            #expect((denied as NSError).domain == "FIRFirestoreErrorDomain")
            #expect((denied as NSError).code == FirestoreErrorCode.permissionDenied.rawValue)

            // A transaction cannot run offline: Firestore's `unavailable` (14), not Auth's network error.
            await server.stopOffPool()
            let offline: any Error = try #require(
                await #expect(throws: KuraError.self) {
                    try await kura.runTransaction { transaction in
                        _ = try await transaction.getDocument(document)
                    }
                })
            #expect((offline as NSError).domain == "FIRFirestoreErrorDomain")
            #expect((offline as NSError).code == FirestoreErrorCode.unavailable.rawValue)
            #expect(offline._code == 14)
            // The same failure in an Auth call is Auth's network error.
            let network: any Error = try #require(
                await #expect(throws: KuraError.self) {
                    try await kura.auth.currentUser?.reload()
                })
            #expect((network as NSError).domain == "FIRAuthErrorDomain")
            #expect((network as NSError).code == AuthErrorCode.networkError.rawValue)
        }
    }
}

/// Pending server timestamps read as Firestore reads them: `NSNull` by default, or the estimate, or the value before.
@Suite struct ServerTimestampBehaviorTests {
    @Test func pendingServerTimestampsReadAsNullEstimateOrPrevious() async throws {
        try await withServer { server in
            let cache = temporaryFile("cache.sqlite")
            defer { removeDatabase(cache) }
            let (kura, uid) = try await signedInClient(
                server, settings: .init(persistence: .file(cache), session: .memory))
            let document = kura.document("users/\(uid)/notes/a")
            try await document.setData(["title": "first", "at": FieldValue.serverTimestamp()])
            let before = try #require(try await document.getDocument().data()?["at"] as? Timestamp)

            await server.stopOffPool()
            try await document.updateData(["at": FieldValue.serverTimestamp(), "title": "second"])
            let local = try await document.getDocument()
            #expect(local.metadata.hasPendingWrites)
            #expect(local.data()?["at"] is NSNull)
            #expect(local.data()?["title"] as? String == "second")
            #expect(local.get("at", serverTimestampBehavior: .none) is NSNull)
            #expect(local.data(with: .estimate)?["at"] is Timestamp)
            #expect(local.data(with: .estimate)?["at"] as? Timestamp != before)
            #expect(local.data(with: .previous)?["at"] as? Timestamp == before)
            #expect(local.get("at", serverTimestampBehavior: .previous) as? Timestamp == before)
            let query = try await kura.collection("users/\(uid)/notes").getDocuments()
            #expect(query.documents.first?.data()["at"] is NSNull)
            #expect(query.documents.first?.data(with: .previous)["at"] as? Timestamp == before)

            try await server.startOffPool()
            try await kura.waitForPendingWrites()
            let stored = try await document.getDocument(source: .server)
            #expect(stored.data()?["at"] is Timestamp)
            #expect(stored.data()?["at"] as? Timestamp != before)
        }
    }
}
