import Dispatch
import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

@testable import KuraClient

/// Where callbacks run: the main queue by default (as Firestore's), or `Kura.Settings.dispatchQueue`.
/// The main queue is serviced while these tests wait: the test runner's `async` entry point hands the main thread
/// to `dispatchMain()` (so on Linux main-queue blocks run on another thread; `isOnMainQueue()` tells them apart).
/// `mainQueueIsServiced` shows both on its own.
@Suite struct CallbackQueueTests {
    @Test func mainQueueIsServiced() async {
        let ran = Shared<Bool?>(nil)
        DispatchQueue.main.async { ran.withLock { $0 = isOnMainQueue() } }
        #expect(await eventually { ran.current != nil })
        #expect(ran.current == true)
        #expect(!isOnMainQueue())
    }

    @Test func listenerAndCompletionCallbacksRunOnTheMainThreadByDefault() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let items = kura.collection("users/\(uid)/items")
            let threads = Shared<[(String, Bool)]>([])
            func record(_ what: String) { threads.withLock { $0.append((what, isOnMainQueue())) } }
            let queryListener = items.addSnapshotListener { snapshot, _ in record("query \(snapshot?.count ?? -1)") }
            let documentListener = items.document("a").addSnapshotListener { snapshot, _ in
                record("document \(snapshot?.exists == true)")
            }
            defer {
                queryListener.remove()
                documentListener.remove()
            }
            #expect(await eventually { threads.current.count == 2 })
            items.document("a").setData(["n": 1]) { _ in record("setData") }
            #expect(await eventually { threads.current.map(\.0).contains("document true") })
            items.getDocuments { snapshot, _ in record("getDocuments \(snapshot?.count ?? -1)") }
            items.document("a").getDocument { snapshot, _ in record("getDocument \(snapshot?.exists == true)") }
            kura.auth.currentUser?.reload { _ in record("reload") }
            #expect(await eventually { threads.current.count >= 8 })
            let seen = threads.current
            #expect(
                Set(seen.map(\.0)).isSuperset(of: [
                    "query 0", "document false", "setData", "query 1", "document true", "getDocuments 1",
                    "getDocument true", "reload",
                ]))
            #expect(seen.allSatisfy { $0.1 }, "off the main queue: \(seen.filter { !$0.1 }.map(\.0))")
        }
    }

    @Test func callbacksRunOnTheConfiguredQueue() async throws {
        try await withServer { server in
            let key = DispatchSpecificKey<String>()
            let queue = DispatchQueue(label: "kura.tests.callbacks")
            queue.setSpecific(key: key, value: "callbacks")
            let (kura, uid) = try await signedInClient(server, settings: .init(session: .memory, dispatchQueue: queue))
            let onQueue = Shared<[Bool]>([])
            func record() { onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: key) == "callbacks") } }
            let listener = kura.collection("users/\(uid)/items").addSnapshotListener { _, _ in record() }
            defer { listener.remove() }
            #expect(await eventually { onQueue.current.count == 1 })
            kura.document("users/\(uid)/items/a").setData(["n": 1]) { _ in record() }
            #expect(await eventually { onQueue.current.count == 3 })
            kura.auth.signIn(withEmail: "nobody@example.com", password: "wrong-pw") { _, _ in record() }
            #expect(await eventually { onQueue.current.count >= 4 }, "\(onQueue.current)")
            #expect(onQueue.current.allSatisfy { $0 })
        }
    }

    @Test func noCallbackAfterRemove() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let items = kura.collection("users/\(uid)/items")
            let count = Shared(0)
            let registration = Shared<ListenerRegistration?>(nil)
            registration.withLock {
                $0 = items.addSnapshotListener { _, _ in
                    // Removed from inside its first callback, on the main queue: no second call may follow.
                    count.withLock { $0 += 1 }
                    registration.current?.remove()
                }
            }
            #expect(await eventually { count.current == 1 })
            try await items.document("a").setData(["n": 1])
            try await items.document("b").setData(["n": 2])
            // A second listener that sees both writes proves the first one had the chance to be called.
            let witness = Collector(items.snapshots())
            defer { witness.cancel() }
            try await witness.wait { $0.count == 2 }
            let drained = Shared(false)
            DispatchQueue.main.async { drained.withLock { $0 = true } }
            #expect(await eventually { drained.current })
            #expect(count.current == 1)
        }
    }

    @Test func signingOutEndsListenersTheRulesNoLongerAllow() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let outcome = Shared<(snapshots: Int, error: KuraError?)>((0, nil))
            let listener = kura.collection("users/\(uid)/items").addSnapshotListener { snapshot, error in
                outcome.withLock {
                    if snapshot != nil { $0.snapshots += 1 }
                    if let error { $0.error = error as? KuraError }
                }
            }
            defer { listener.remove() }
            #expect(await eventually { outcome.current.snapshots == 1 })
            try await kura.auth.signOut()
            // As in Firestore: the listener is re-sent signed out, the rules refuse it, and it ends with the error.
            #expect(await eventually { outcome.current.error != nil })
            #expect(outcome.current.error?.code == .permissionDenied)
            #expect(outcome.current.snapshots == 1)
        }
    }
}
