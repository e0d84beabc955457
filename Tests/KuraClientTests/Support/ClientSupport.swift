import Foundation
import KuraClient
import KuraServerTestSupport
import KuraTestSupport

/// A client of `server` with nothing persisted.
func makeClient(_ server: TestKura, settings: Kura.Settings = .init(session: .memory)) -> Kura {
    Kura(url: server.url, settings: settings)
}

/// A new address per test, so tests never share accounts.
func uniqueEmail(_ name: String = "user") -> String {
    "\(name)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
}

/// A client signed in as a new account; returns the client and the uid.
func signedInClient(_ server: TestKura, settings: Kura.Settings = .init(session: .memory)) async throws -> (
    Kura, String
) {
    let kura = makeClient(server, settings: settings)
    let result = try await kura.auth.createUser(withEmail: uniqueEmail(), password: "secret-pw")
    return (kura, result.user.uid)
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// A temporary file path (not created).
func temporaryFile(_ name: String) -> URL {
    URL(fileURLWithPath: TemporaryDirectory.uniquePath("client") + "-" + name)
}

/// Removes an SQLite database and its WAL files.
func removeDatabase(_ file: URL) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
}

/// Consumes a stream in the background and keeps what it yields, for tests to wait on; `cancel()` ends it (and
/// so the listener).
final class Collector<Element: Sendable>: Sendable {
    private let state = Shared<(items: [Element], error: (any Error)?, finished: Bool)>(([], nil, false))
    private let task: Task<Void, Never>

    init<Stream: AsyncSequence & Sendable>(_ stream: Stream) where Stream.Element == Element {
        let state = self.state
        task = Task {
            do {
                for try await item in stream { state.withLock { $0.items.append(item) } }
                state.withLock { $0.finished = true }
            } catch {
                state.withLock {
                    $0.error = error
                    $0.finished = true
                }
            }
        }
    }

    var items: [Element] { state.withLock { $0.items } }
    var error: (any Error)? { state.withLock { $0.error } }
    var finished: Bool { state.withLock { $0.finished } }

    /// Waits until at least `count` items arrived; returns them all (or throws after `timeout`).
    @discardableResult
    func wait(forCount count: Int, timeout: Duration = .seconds(10)) async throws -> [Element] {
        guard await eventually(timeout: timeout, { self.items.count >= count || self.finished }),
            items.count >= count
        else {
            throw TestFailure("expected \(count) items, got \(items.count) (error: \(String(describing: error)))")
        }
        return items
    }

    /// The last item once `condition` holds for it.
    @discardableResult
    func wait(timeout: Duration = .seconds(10), until condition: @escaping (Element) -> Bool) async throws -> Element {
        guard await eventually(timeout: timeout, { self.items.last.map(condition) ?? false }), let last = items.last
        else {
            throw TestFailure("condition never held; \(items.count) items (error: \(String(describing: error)))")
        }
        return last
    }

    func cancel() { task.cancel() }
}

/// Marks the main dispatch queue, so callbacks can tell they run on it. (`Thread.isMainThread` cannot: the test
/// runner's `async` entry point gives the main thread over to `dispatchMain()`, which on Linux services the main
/// queue from another thread.)
private let mainQueueKey: DispatchSpecificKey<String> = {
    let key = DispatchSpecificKey<String>()
    DispatchQueue.main.setSpecific(key: key, value: "main")
    return key
}()

/// Whether the caller runs on the main dispatch queue (where Firestore calls its callbacks).
func isOnMainQueue() -> Bool { DispatchQueue.getSpecific(key: mainQueueKey) == "main" }
