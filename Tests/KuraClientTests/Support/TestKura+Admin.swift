import Foundation
import KuraServer
import KuraServerTestSupport
import KuraTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The only file of this target that sees the server's modules: `Kura` and `KuraError` elsewhere in the tests are
// the client's. The server itself is KuraServerTestSupport's `TestKura`.

/// A server with cheap password hashing, no rate limits and four worker threads; `shutdown()` removes it.
/// `idTokenLifetime` shortens ID tokens (seconds) for refresh tests; `rules` replaces the default security rules
/// (the text of `kura.rules`); `streamClockShift` (seconds) moves the clock against which listen streams' ID
/// tokens expire, so a test can expire a stream's token at a moment of its choosing.
///
/// Async: starting a node (opening its databases, starting its threads) blocks, so it runs on a thread of its own
/// (`offPool`), never on Swift's cooperative pool.
func testServer(
    idTokenLifetime: Int64? = nil, rules: String? = nil, streamClockShift: Shared<Double>? = nil,
    configure: @escaping @Sendable (inout KuraConfiguration) -> Void = { _ in }
) async throws -> TestKura {
    try await offPool {
        try TestKura(rules: rules) { configuration in
            configuration.http.workerThreads = 4
            configuration.logLevel = .error
            configuration.auth = .lowCostForTesting
            configuration.auth.rateLimits.enabled = false
            if let idTokenLifetime { configuration.auth.idTokenLifetime = idTokenLifetime }
            if let streamClockShift {
                configuration.realtime.wallClock = { Date().timeIntervalSince1970 + streamClockShift.current }
            }
            configure(&configuration)
        }
    }
}

/// Runs `body` against a fresh `testServer` and removes it afterwards.
func withServer<T>(
    idTokenLifetime: Int64? = nil, rules: String? = nil, streamClockShift: Shared<Double>? = nil,
    configure: @escaping @Sendable (inout KuraConfiguration) -> Void = { _ in }, _ body: (TestKura) async throws -> T
) async throws -> T {
    let server = try await testServer(
        idTokenLifetime: idTokenLifetime, rules: rules, streamClockShift: streamClockShift, configure: configure)
    do {
        let result = try await body(server)
        await server.shutdownOffPool()
        return result
    } catch {
        await server.shutdownOffPool()
        throw error
    }
}

/// Runs blocking work (starting, stopping or removing an in-process node: it opens databases and joins threads)
/// on a thread of its own and waits for it without holding a thread of Swift's cooperative pool. The pool has one
/// thread per core and all of this target's tests run at once: when each test started and stopped its node on the
/// pool, every other test's awaits (listener callbacks, `eventually`) stalled for seconds at a time on a 2-core
/// machine (up to 39 s measured under load), and waits that allow 10 s failed.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}

/// Runs `body` on the main actor, then shuts `server` down off the pool, whether `body` threw or not (the
/// main-actor twin of `withServer`, for tests that drive Firebase-style code whose callbacks come on the main queue).
@MainActor func shuttingDown(_ server: TestKura, _ body: @MainActor () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        await server.shutdownOffPool()
        throw error
    }
    await server.shutdownOffPool()
}

extension TestKura {
    /// `stop()` off the cooperative pool (see `offPool`).
    func stopOffPool() async {
        _ = try? await offPool { self.stop() }
    }

    /// `start()` off the cooperative pool (see `offPool`).
    func startOffPool() async throws {
        try await offPool { try self.start() }
    }

    /// `shutdown()` off the cooperative pool (see `offPool`).
    func shutdownOffPool() async {
        _ = try? await offPool { self.shutdown() }
    }
}

extension TestKura {
    /// Open listen streams on the server (0 while it is stopped).
    var listenConnections: Int { isRunning ? kura.realtime.connectionCount : 0 }

    /// An admin-key request through URLSession (the SDK's tests stay off blocking sockets), for setting up and
    /// checking what the SDK did: the parsed JSON body (`nil` if empty) and the status.
    func admin(_ method: String, _ path: String, json: Any? = nil) async throws -> (status: Int, body: Any?) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.setValue("Bearer \(adminKey)", forHTTPHeaderField: "Authorization")
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, data.isEmpty ? nil : try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    /// The `data` of the document at `path` as the server has it (admin read), or `nil` when it does not exist.
    func document(_ path: String) async throws -> [String: Any]? {
        let (status, body) = try await admin("GET", "/api/docs/\(path)")
        guard status == 200 else { return nil }
        return (body as? [String: Any])?["data"] as? [String: Any]
    }

    /// The full document JSON (with `version`) at `path`, or `nil`.
    func documentJSON(_ path: String) async throws -> [String: Any]? {
        let (status, body) = try await admin("GET", "/api/docs/\(path)")
        return status == 200 ? body as? [String: Any] : nil
    }

    /// The held mails to `address` (newest first): `subject` and `actionLink` of each.
    func mails(to address: String) async throws -> [[String: Any]] {
        let (_, body) = try await admin("GET", "/api/admin/outbox")
        let mails = (body as? [String: Any])?["mails"] as? [[String: Any]] ?? []
        return mails.filter { $0["to"] as? String == address }
    }

    /// The held mails to `address` once there are at least `count` (mails asked for by address, such as a password
    /// reset, are written after the answer), waiting up to 10 s; then whatever there is.
    func mails(to address: String, atLeast count: Int) async throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let mails = try await mails(to: address)
            if mails.count >= count || ContinuousClock.now >= deadline { return mails }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The action code of the newest held mail to `address` with link mode `mode` (`verifyEmail`,
    /// `resetPassword`), waiting up to 5 s for it: mails asked for by address are written after the answer.
    func actionCode(to address: String, mode: String) async throws -> String? {
        for _ in 0..<50 {
            let (_, body) = try await admin("GET", "/api/admin/outbox")
            let mails = (body as? [String: Any])?["mails"] as? [[String: Any]] ?? []
            for mail in mails where mail["to"] as? String == address {
                guard let link = mail["actionLink"] as? String, link.contains("mode=\(mode)") else { continue }
                return URLComponents(string: link)?.queryItems?.first { $0.name == "code" }?.value
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }
}
