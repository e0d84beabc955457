import Foundation
import KuraTestSupport
import Testing

@testable import KuraClient

/// The Realtime Database facade: how paths map to documents and fields, and its events.
@Suite struct DatabaseFacadeTests {
    @Test func pathsMapToDocumentsAndFields() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let user = Database.database(kura: kura).reference().child("users").child(uid)
            let note = user.child("notes/n1")
            try await note.setValue(["title": "milk", "count": 2])
            #expect(try await server.document("users/\(uid)/notes/n1")?["title"] as? String == "milk")
            try await note.child("done").setValue(true)
            let stored = try #require(try await server.document("users/\(uid)/notes/n1"))
            #expect(stored["done"] as? Bool == true)
            #expect(stored["count"] as? Int == 2)
            try await note.child("count").removeValue()
            #expect(try await server.document("users/\(uid)/notes/n1")?["count"] == nil)
            let refused = await #expect(throws: KuraError.self) { try await note.setValue("not fields") }
            #expect(refused?.code == .invalidArgument)
            let collection = await #expect(throws: KuraError.self) { try await user.parent!.setValue(["a": 1]) }
            #expect(collection?.code == .invalidPath)
            try await note.removeValue()
            #expect(try await server.document("users/\(uid)/notes/n1") == nil)
        }
    }

    @Test func observeValueAndChildEvents() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let notes = Database.database(kura: kura).reference(withPath: "users/\(uid)/notes")
            let events = Shared<[String]>([])
            func record(_ event: String) { events.withLock { $0.append(event) } }
            let value = notes.observe(.value) { snapshot in
                record("value \(snapshot.childrenCount) \(snapshot.exists())")
            }
            let added = notes.observe(.childAdded) {
                record("added \($0.key) \(($0.value as? [String: Any])?["t"] ?? "")")
            }
            let changed = notes.observe(.childChanged) { record("changed \($0.key)") }
            let removed = notes.observe(.childRemoved) { record("removed \($0.key)") }
            let document = notes.child("a")
            let documentValue = document.observe(.value) { snapshot in
                record("doc \(snapshot.exists()) \(snapshot.childSnapshot(forPath: "t").value ?? "")")
            }
            #expect(
                await eventually {
                    events.current.contains("value 0 false") && events.current.contains("doc false <null>")
                })
            try await document.setValue(["t": "x"])
            #expect(await eventually { events.current.contains("added a x") && events.current.contains("doc true x") })
            try await document.child("t").setValue("y")
            #expect(await eventually { events.current.contains("changed a") && events.current.contains("doc true y") })
            try await document.removeValue()
            #expect(await eventually { events.current.contains("removed a") })
            #expect(
                events.current.filter { $0.hasPrefix("value") } == [
                    "value 0 false", "value 1 true", "value 1 true", "value 0 false",
                ])

            notes.removeObserver(withHandle: value)
            notes.removeObserver(withHandle: documentValue)
            notes.removeAllObservers()
            let count = events.current.count
            let once = Shared<String?>(nil)
            notes.observeSingleEvent(of: .value) { snapshot in
                once.withLock { $0 = "once \(snapshot.childrenCount)" }
            }
            #expect(await eventually { once.current != nil })
            try await notes.child("b").setValue(["t": "z"])
            let witness = Collector(kura.collection("users/\(uid)/notes").snapshots())
            defer { witness.cancel() }
            try await witness.wait { $0.count == 1 }
            #expect(once.current == "once 0")
            #expect(events.current.count == count)
            let handles = [value, added, changed, removed, documentValue]
            #expect(Database.observers.current.registrations.keys.allSatisfy { !handles.contains($0) })
        }
    }

    @Test func theRootCannotBeObserved() async throws {
        try await withServer { server in
            let kura = makeClient(server)
            let failure = Shared<KuraError?>(nil)
            let root = Database.database(kura: kura).reference()
            let handle = root.observe(.value, with: { _ in }) { error in
                failure.withLock { $0 = error as? KuraError }
            }
            #expect(await eventually { failure.current != nil })
            #expect(failure.current?.code == .invalidPath)
            root.removeObserver(withHandle: handle)
        }
    }
}
