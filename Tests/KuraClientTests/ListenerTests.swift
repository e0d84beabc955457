import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

@testable import KuraClient

/// Realtime listeners against a real server: changes, document listeners, one shared stream, resumption.
@Suite struct ListenerTests {
    func describe(_ snapshot: QuerySnapshot) -> [String] {
        snapshot.documentChanges.map { change in
            "\(change.type.rawValue) \(change.document.documentID) \(change.oldIndex.map(String.init) ?? "-")>\(change.newIndex.map(String.init) ?? "-")"
        }
    }

    @Test func queryListenerSeesAddsModifiesAndRemoves() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let items = kura.collection("users/\(uid)/items")
            try await items.document("b").setData(["n": 2])
            let listener = Collector(items.order(by: "n").snapshots())
            defer { listener.cancel() }
            let first = try await listener.wait(forCount: 1)[0]
            #expect(first.documents.map(\.documentID) == ["b"])
            #expect(describe(first) == ["added b ->0"])

            try await items.document("a").setData(["n": 1])
            let second = try await listener.wait(forCount: 2)[1]
            #expect(second.documents.map(\.documentID) == ["a", "b"])
            #expect(describe(second) == ["added a ->0"])

            try await items.document("a").updateData(["n": 3])
            let third = try await listener.wait(forCount: 3)[2]
            #expect(third.documents.map(\.documentID) == ["b", "a"])
            #expect(describe(third) == ["modified a 0>1"])
            #expect(third.documents[1]["n"] == 3)

            try await items.document("b").delete()
            let fourth = try await listener.wait(forCount: 4)[3]
            #expect(fourth.documents.map(\.documentID) == ["a"])
            #expect(describe(fourth) == ["removed b 0>-"])
        }
    }

    @Test func documentListener() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let document = kura.document("users/\(uid)/items/x")
            let listener = Collector(document.snapshots())
            defer { listener.cancel() }
            #expect(try await listener.wait(forCount: 1)[0].exists == false)
            try await document.setData(["v": 1])
            #expect(try await listener.wait { $0["v"] == 1 }.exists)
            try await document.updateData(["v": 2])
            try await listener.wait { $0["v"] == 2 }
            try await document.delete()
            try await listener.wait { !$0.exists }
        }
    }

    @Test func listenersShareOneStreamWhichClosesWithTheLast() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let a = Collector(kura.collection("users/\(uid)/a").snapshots())
            let b = Collector(kura.collection("users/\(uid)/b").snapshots())
            let c = Collector(kura.document("users/\(uid)/a/x").snapshots())
            try await a.wait(forCount: 1)
            try await b.wait(forCount: 1)
            try await c.wait(forCount: 1)
            #expect(server.listenConnections == 1)
            #expect(kura.listeners.statistics.connections == 1)
            try await kura.document("users/\(uid)/a/x").setData(["v": 1])
            try await a.wait(forCount: 2)
            try await c.wait(forCount: 2)
            a.cancel()
            b.cancel()
            try await kura.document("users/\(uid)/a/x").setData(["v": 2])
            try await c.wait { $0["v"] == 2 }
            #expect(b.items.count == 1)
            c.cancel()
            #expect(await eventually { server.listenConnections == 0 })
            #expect(kura.listeners.count == 0)
        }
    }

    @Test func aDroppedStreamResumesWithoutLosingOrRepeatingChanges() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let writer = makeClient(server)
            try await writer.auth.signIn(withEmail: try #require(kura.auth.currentUser?.email), password: "secret-pw")
            let items = kura.collection("users/\(uid)/items")
            let listener = Collector(items.order(by: "n").snapshots())
            defer { listener.cancel() }
            let profile = Collector(kura.document("users/\(uid)").snapshots())
            defer { profile.cancel() }
            try await listener.wait(forCount: 1)
            try await profile.wait(forCount: 1)
            try await writer.document("users/\(uid)/items/i1").setData(["n": 1])
            try await listener.wait { $0.count == 1 }

            // The connection drops; changes made meanwhile arrive after the reconnect, as changes (a resume from
            // the last event id), not as a new snapshot.
            let before = kura.listeners.statistics
            kura.listeners.dropConnection()
            for n in 2...4 { try await writer.document("users/\(uid)/items/i\(n)").setData(["n": .init(n)]) }
            try await writer.document("users/\(uid)").setData(["name": "Ada"])
            try await listener.wait { $0.count == 4 }
            try await profile.wait { $0["name"] == "Ada" }
            // A second drop right away resumes both again from where each really was.
            kura.listeners.dropConnection()
            try await writer.document("users/\(uid)/items/i5").setData(["n": 5])
            try await writer.document("users/\(uid)").setData(["name": "Grace"])
            try await listener.wait { $0.count == 5 }
            try await profile.wait { $0["name"] == "Grace" }
            let after = kura.listeners.statistics
            #expect(after.connections == before.connections + 2)
            #expect(after.snapshotEvents == before.snapshotEvents)
            let added = listener.items.flatMap {
                $0.documentChanges.filter { $0.type == .added }.map(\.document.documentID)
            }
            #expect(added == ["i1", "i2", "i3", "i4", "i5"])
            #expect(profile.items.compactMap { $0["name"]?.stringValue } == ["Ada", "Grace"])
        }
    }

    @Test func listenersSurviveAServerRestart() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let items = kura.collection("users/\(uid)/items")
            let listener = Collector(items.snapshots())
            defer { listener.cancel() }
            try await listener.wait(forCount: 1)
            await server.stopOffPool()
            try await Task.sleep(for: .milliseconds(300))
            try await server.startOffPool()
            try await items.document("late").setData(["v": 1])
            let snapshot = try await listener.wait(timeout: .seconds(20)) { $0.count == 1 }
            #expect(snapshot.documents.first?.documentID == "late")
            #expect(listener.items.flatMap(\.documentChanges).filter { $0.type == .added }.count == 1)
        }
    }

    @Test func refusedListenersFailWithTheServersCode() async throws {
        try await withServer { server in
            let (kura, _) = try await signedInClient(server)
            let (_, other) = try await signedInClient(server)
            let denied = Collector(kura.collection("users/\(other)/items").snapshots())
            #expect(await eventually { denied.finished })
            #expect((denied.error as? KuraError)?.code == .permissionDenied)
            let invalid = Collector(
                kura.collection("users/x/items").whereField("a", notIn: [1]).whereField("b", isNotEqualTo: 2)
                    .snapshots())
            #expect(await eventually { invalid.finished })
            #expect((invalid.error as? KuraError)?.code == .invalidQuery)
        }
    }

    @Test func callbackListenersStopWhenRemoved() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let items = kura.collection("users/\(uid)/items")
            let seen = Shared<[Int]>([])
            let registration = items.addSnapshotListener { snapshot, error in
                #expect(error == nil)
                seen.withLock { $0.append(snapshot?.count ?? -1) }
            }
            #expect(await eventually { seen.withLock { $0 } == [0] })
            try await items.document("a").setData(["v": 1])
            #expect(await eventually { seen.withLock { $0 } == [0, 1] })
            registration.remove()
            #expect(await eventually { kura.listeners.count == 0 })
            try await items.document("b").setData(["v": 2])
            try await Task.sleep(for: .milliseconds(300))
            #expect(seen.withLock { $0 } == [0, 1])
        }
    }

    @Test func listenersOutliveTheirIDToken() async throws {
        // The server ends a stream with `auth_revoked` (TOKEN_EXPIRED) once its ID token expires; the SDK refreshes
        // the token and resumes, so no change is lost. The server's clock for stream tokens is moved past expiry
        // until the SDK has refreshed, and back: waiting out a short token lifetime instead would race the stream's
        // setup (a stream lives only as long as its token) on a busy machine.
        let shift = Shared(0.0)
        try await withServer(streamClockShift: shift) { server in
            let (kura, uid) = try await signedInClient(server)
            let user = try #require(kura.auth.currentUser)
            let writer = makeClient(server)
            try await writer.auth.signIn(withEmail: try #require(user.email), password: "secret-pw")
            let items = kura.collection("users/\(uid)/items")
            let listener = Collector(items.snapshots())
            defer { listener.cancel() }
            try await listener.wait(forCount: 1)
            let first = kura.auth.storage.load()?.refreshToken

            shift.withLock { $0 = 2 * 3600 }
            // Refreshed: each refresh rotates the refresh token (an ID token issued within the same second as the
            // previous one can be byte-identical to it).
            #expect(await eventually { kura.auth.storage.load()?.refreshToken != first })
            // While every token is expired to the streams they keep ending; the change waits for the next one.
            try await writer.document("users/\(uid)/items/late").setData(["v": 1])
            shift.withLock { $0 = 0 }
            try await listener.wait { $0.count == 1 }
            #expect(kura.listeners.statistics.connections >= 2)
            #expect(kura.listeners.statistics.snapshotEvents == 1)
            #expect(listener.error == nil)
        }
    }

    @Test func aStreamIsNotOpenedWithAHalfSpentIDToken() async throws {
        // The server ends a stream when its token expires, so a token past half its life is refreshed before a
        // stream is opened with it (a data call would still use it). The session is relaunched from a file that
        // says its token has 40% of its life left.
        try await withServer { server in
            let file = temporaryFile("session.json")
            defer { try? FileManager.default.removeItem(at: file) }
            let (_, uid) = try await signedInClient(server, settings: .init(session: .file(file)))
            let storage = FileSessionStorage(url: file)
            var session = try #require(storage.load())
            session.expiresAt = Date(timeIntervalSinceNow: session.lifetime * 0.4)
            try storage.save(session)

            let kura = makeClient(server, settings: .init(session: .file(file)))
            let listener = Collector(kura.collection("users/\(uid)/items").snapshots())
            defer { listener.cancel() }
            try await listener.wait(forCount: 1)
            // Refreshed (which rotates the refresh token): a data call would not have refreshed a token with 40% of
            // an hour left. The stream was opened once.
            #expect(kura.auth.storage.load()?.refreshToken != session.refreshToken)
            #expect(kura.listeners.statistics.connections == 1)
        }
    }
}
