import CPostgres
import KuraCore

#if canImport(Glibc)
    import Glibc
#endif

/// A NOTIFY received on a channel this session listens on.
public struct PostgresNotification: Sendable, Equatable {
    /// The channel name.
    public var channel: String
    /// The payload (empty when NOTIFY sent none).
    public var payload: String
    /// The server process of the session that sent it.
    public var senderProcessID: Int32
}

extension PostgresConnection {
    /// Starts listening on `channel`; notifications arrive through `notifications(waitingUpTo:)`.
    /// Listening survives `reconnect()`, though notifications sent while disconnected are lost: a follower
    /// must read the truth (the change log) after reconnecting.
    public func listen(_ channel: String) throws {
        try execute("LISTEN \(quotedIdentifier(channel))")
        rememberChannel(channel, listening: true)
    }

    /// Stops listening on `channel`.
    public func unlisten(_ channel: String) throws {
        try execute("UNLISTEN \(quotedIdentifier(channel))")
        rememberChannel(channel, listening: false)
    }

    /// Sends a notification (`pg_notify`), delivered to listeners when the current transaction commits.
    public func notify(_ channel: String, payload: String = "") throws {
        try query("SELECT pg_notify($1, $2)", [.text(channel), .text(payload)])
    }

    /// The notifications that have arrived, waiting on the socket up to `timeout` (nil: until one arrives;
    /// `.zero`: not at all) when none is pending. Reads whatever input the socket has (`PQconsumeInput`), so an
    /// event loop that saw the socket readable calls this with `.zero`. Throws when the connection is lost.
    public func notifications(waitingUpTo timeout: Duration? = .zero) throws -> [PostgresNotification] {
        try consumeInput()
        var received = drainNotifications()
        if !received.isEmpty || timeout == .zero { return received }
        let deadline = timeout.map { timeout -> UInt64 in
            let parts = timeout.components
            return MonotonicClock.nanoseconds() &+ UInt64(max(0, parts.seconds)) * 1_000_000_000
                &+ UInt64(max(0, parts.attoseconds) / 1_000_000_000)
        }
        while received.isEmpty {
            var remaining = -1
            if let deadline {
                let now = MonotonicClock.nanoseconds()
                if now >= deadline { break }
                remaining = max(Int((deadline - now) / 1_000_000), 1)
            }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(clamping: remaining))
            if ready < 0 && errno != EINTR {
                throw PostgresError(kind: .connectionLost, message: "waiting for notifications: errno \(errno)")
            }
            try consumeInput()
            received = drainNotifications()
        }
        return received
    }

    private func consumeInput() throws {
        guard socket >= 0, PQconsumeInput(raw) == 1 else {
            let message = PQerrorMessage(raw).map { String(cString: $0) } ?? "connection lost"
            throw PostgresError(kind: .connectionLost, message: "reading notifications: \(message)")
        }
    }

    private func drainNotifications() -> [PostgresNotification] {
        var received: [PostgresNotification] = []
        while let notice = PQnotifies(raw) {
            received.append(
                PostgresNotification(
                    channel: String(cString: notice.pointee.relname),
                    payload: notice.pointee.extra.map { String(cString: $0) } ?? "",
                    senderProcessID: notice.pointee.be_pid))
            PQfreemem(notice)
        }
        return received
    }
}
