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
    let settings = sdkTestSettings(idTokenLifetime: idTokenLifetime, streamClockShift: streamClockShift, configure)
    return try await offPool { try TestKura(rules: rules, configure: settings) }
}

/// The settings of `testServer`: `useSDKTestSettings`, the test's token lifetime and stream clock, then `configure`.
private func sdkTestSettings(
    idTokenLifetime: Int64?, streamClockShift: Shared<Double>?,
    _ configure: @escaping @Sendable (inout KuraConfiguration) -> Void
) -> @Sendable (inout KuraConfiguration) -> Void {
    { configuration in
        configuration.useSDKTestSettings()
        if let idTokenLifetime { configuration.auth.idTokenLifetime = idTokenLifetime }
        if let streamClockShift {
            configuration.realtime.wallClock = { Date().timeIntervalSince1970 + streamClockShift.current }
        }
        configure(&configuration)
    }
}

/// Runs `body` against a fresh `testServer` and removes it afterwards.
func withServer<T>(
    idTokenLifetime: Int64? = nil, rules: String? = nil, streamClockShift: Shared<Double>? = nil,
    configure: @escaping @Sendable (inout KuraConfiguration) -> Void = { _ in }, _ body: (TestKura) async throws -> T
) async throws -> T {
    try await withTestKura(
        rules: rules,
        configure: sdkTestSettings(idTokenLifetime: idTokenLifetime, streamClockShift: streamClockShift, configure),
        body)
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
    /// Open listen streams on the server (0 while it is stopped).
    var listenConnections: Int { isRunning ? kura.realtime.connectionCount : 0 }

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
        try await actionLink(to: address, mode: mode).flatMap {
            URLComponents(string: $0)?.queryItems?.first { $0.name == "code" }?.value
        }
    }

    /// The link of the newest queued mail to `address` whose link has `mode` (waits up to 5 s for it).
    func actionLink(to address: String, mode: String) async throws -> String? {
        for _ in 0..<50 {
            let (_, body) = try await admin("GET", "/api/admin/outbox")
            let mails = (body as? [String: Any])?["mails"] as? [[String: Any]] ?? []
            for mail in mails where mail["to"] as? String == address {
                guard let link = mail["actionLink"] as? String, link.contains("mode=\(mode)") else { continue }
                return link
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }
}
