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
    /// `.zero`: not at all) when none is pending; the wait also ends when the answer to a statement `sendQuery`
    /// sent arrives. Reads whatever input the socket has (`PQconsumeInput`), so an event loop that saw the socket
    /// readable calls this with `.zero`. Throws when the connection is lost.
    public func notifications(waitingUpTo timeout: Duration? = .zero) throws -> [PostgresNotification] {
        let awaited = awaitsAnswer
        try consumeInput()
        var received = drainNotifications()
        if !received.isEmpty || timeout == .zero || (awaited && !awaitsAnswer) { return received }
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
            if awaited && !awaitsAnswer { break }
        }
        return received
    }

    /// Sends one statement and returns without waiting for its answer, which `notifications(waitingUpTo:)` reads
    /// as it arrives (or the next statement run on this connection waits for), and `takeAnswer()` hands out. For
    /// a listener that must notice a server that stopped answering: it keeps waiting for notifications, and a
    /// statement long unanswered is the sign. An earlier sent statement's answer not taken yet is dropped.
    public func sendQuery(_ sql: String, _ parameters: [PostgresValue] = [], prepared: Bool = false) throws {
        finishSentQuery()
        sentQuery = nil
        let encoded = parameters.map(EncodedParameter.init)
        let name = prepared ? try preparedName(for: sql, encoded) : nil
        let sent = withParameterArrays(encoded) { types, values, lengths, formats in
            if let name {
                PQsendQueryPrepared(raw, name, Int32(encoded.count), values, lengths, formats, 0)
            } else {
                PQsendQueryParams(raw, sql, Int32(encoded.count), types, values, lengths, formats, 0)
            }
        }
        guard sent == 1 else {
            throw PostgresError(
                kind: isConnected ? .statement : .connectionLost,
                message: "sending \(sql.prefix(80)): \(Self.errorMessage(raw))")
        }
        sentQuery = SentQuery(sql: sql)
    }

    /// Whether a statement `sendQuery` sent has not been answered yet.
    public var awaitsAnswer: Bool { sentQuery != nil && sentQuery?.answer == nil }

    /// The answer to the statement `sendQuery` sent (text format), once: nil while it has not arrived, or when
    /// nothing was sent; its error is thrown.
    public func takeAnswer() throws -> PostgresResult? {
        guard let answer = sentQuery?.answer else { return nil }
        sentQuery = nil
        return try answer.get()
    }

    /// Waits for the answer to the statement `sendQuery` sent, if it has not arrived, and keeps it for
    /// `takeAnswer()`: the statements that wait for their own results run after it.
    func finishSentQuery() {
        collectAnswer(blocking: true)
    }

    /// Reads the sent statement's answer if it has arrived (`blocking`: waiting for it); then libpq parses what
    /// follows it, the notifications sent after it among them.
    private func collectAnswer(blocking: Bool) {
        guard var sent = sentQuery, sent.answer == nil else { return }
        if !blocking && PQisBusy(raw) == 1 { return }
        let first = PQgetResult(raw)
        sent.answer = Result { try check(first, doing: sent.sql) }
        while let extra = PQgetResult(raw) { PQclear(extra) }
        sentQuery = sent
    }

    private func consumeInput() throws {
        guard socket >= 0, PQconsumeInput(raw) == 1 else {
            let message = PQerrorMessage(raw).map { String(cString: $0) } ?? "connection lost"
            throw PostgresError(kind: .connectionLost, message: "reading notifications: \(message)")
        }
    }

    /// The notifications libpq has parsed, after the sent statement's answer if it has arrived (libpq parses
    /// nothing past an answer nobody collected).
    private func drainNotifications() -> [PostgresNotification] {
        collectAnswer(blocking: false)
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

/// A statement `PostgresConnection.sendQuery` sent, and its answer once it arrived.
struct SentQuery {
    var sql: String
    var answer: Result<PostgresResult, any Error>?
}
