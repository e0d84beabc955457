import KuraCore
import KuraModel
import KuraStore

/// The change feed: one thread that reads the change log whenever a commit pokes it (and on a short poll, for
/// other processes' writes), finds the listeners each entry concerns through the fan-out index, applies the entry
/// to their views, and hands every stream its events as one batch. It owns every active listener; other threads
/// reach it through the registry's inbox. It also sends heartbeats and re-checks credentials.
final class ChangeFeed: @unchecked Sendable {
    // `@unchecked`: its mutable state is touched on the feed's own thread only; other threads reach it through the
    // registry's inbox (a lock) and `thread.wake()`.
    /// The feed's thread. 4 MiB of stack: a listener's rules evaluation recurses.
    private let thread = ServiceThread(name: "kura-changefeed", stackSize: 4 << 20)

    /// Everything up to this sequence has been delivered to every active listener; -1 before the first. It never
    /// goes back, so a stream's plain ids never do either.
    private var position: Int64 = -1
    private var index = ListenerIndex<Int>()
    private var targets: [Int: TargetState] = [:]
    /// Shares the work of one change among listeners with identical views (`ViewSharing`).
    private var sharing = ViewSharing()
    /// The live listeners per scoped share key (`TargetState.scopedShareKey`).
    private var groups: [ShareKey: ShareGroup] = [:]
    private var pending: [Registration] = []
    /// The latest entries read, so that a target going live catches up without reading the log again.
    private var recent: [Change] = []
    private static let recentCapacity = 256
    /// `MonotonicClock` seconds: when the next heartbeat and the next expiry check are due.
    private var nextHeartbeat = 0.0
    private var nextExpiryCheck = 0.0
    /// When the stage timings (`ListenerRegistry.timings`) are next logged.
    private var nextTimingsLog = 0.0
    private static let timingsInterval = 5.0

    func start(_ registry: ListenerRegistry) {
        thread.start { [self] in run(registry) }
    }

    func stop(_ signal: ChangeSignal) {
        thread.requestStop()
        // The feed sleeps on the commit signal, not in the thread's own sleep.
        signal.poke()
        thread.join()
    }

    private var isRunning: Bool { !thread.isStopping }

    private func run(_ registry: ListenerRegistry) {
        let configuration = registry.configuration
        let tick = max(0.005, min(Double(configuration.pollMilliseconds) / 1000, configuration.heartbeatSeconds, 1))
        nextHeartbeat = MonotonicClock.seconds() + configuration.heartbeatSeconds
        while isRunning {
            registry.signal.wait(seconds: tick)
            guard isRunning else { break }
            drainInbox(registry)
            do {
                try follow(registry)
            } catch {
                registry.logger.error("reading the change log for listeners failed: \(error)")
            }
            timers(registry)
            registry.activeTargets.store(targets.count, ordering: .relaxed)
        }
    }

    // MARK: Inbox

    private func drainInbox(_ registry: ListenerRegistry) {
        let items = registry.inbox.withLock { items -> [ListenerRegistry.InboxItem] in
            let taken = items
            items.removeAll()
            return taken
        }
        for item in items {
            switch item {
            case .register(let registration):
                pending.append(registration)
            case .failed(let connection, let targetID, let generation, let error):
                guard connection.isCurrent(targetID, generation) else { continue }
                connection.drop(targetID, generation)
                connection.send(ListenEvent.error(targetID, error))
            case .remove(let connection, let targetID):
                if let state = connection.feedSide.targets[targetID] { unregister(state) }
            case .closed(let connection):
                for state in connection.feedSide.targets.values { unregister(state) }
                pending.removeAll { $0.state.connection === connection }
            }
        }
    }

    private func unregister(_ state: TargetState) {
        guard targets.removeValue(forKey: state.key) != nil else { return }
        index.remove(state.key, state.target)
        if let group = state.group {
            group.members -= 1
            if group.members == 0 { groups[group.key] = nil }
            state.group = nil
        }
        if state.connection.feedSide.targets[state.target.id] === state {
            state.connection.feedSide.targets[state.target.id] = nil
        }
    }

    // MARK: Following the log

    private func follow(_ registry: ListenerRegistry) throws {
        registerReady(registry)
        guard !targets.isEmpty || !pending.isEmpty else { return }
        while isRunning && position >= 0 {
            let readStart = registry.timings == nil ? 0 : WallClock.nowMicros()
            let page = try registry.store.changes(after: position, limit: ListenerRegistry.pageSize)
            guard let first = page.first, let last = page.last else { break }
            if let timings = registry.timings {
                timings.record("commit→feed read", micros: readStart - first.time)
                timings.record("feed read", micros: WallClock.nowMicros() - readStart)
            }
            if first.sequence > position + 1, try registry.store.oldestRetainedSequence() > position + 1 {
                // The log was pruned past what the listeners have: they cannot be brought up to date in place.
                fellBehind(registry)
                return
            }
            process(page, registry)
            position = last.sequence
            registerReady(registry)
            if page.count < ListenerRegistry.pageSize { break }
        }
    }

    /// Applies a page of entries to the listeners they concern and sends each stream its batch.
    private func process(_ page: [Change], _ registry: ListenerRegistry) {
        let started = registry.timings == nil ? 0 : WallClock.nowMicros()
        defer { registry.timings?.record("feed process", micros: WallClock.nowMicros() - started) }
        let base = position
        // Targets with changes to send, in the order they first had one; their chunks are in `outgoing`.
        var touched: [TargetState] = []
        var failed: [TargetState] = []
        for change in page {
            sharing.begin()
            for key in index.listeners(for: change.path, before: change.before, after: change.after) {
                guard let state = targets[key] else { continue }
                do {
                    guard let chunk = try state.apply(change, reader: registry.reader, sharing: &sharing) else {
                        continue
                    }
                    if state.outgoing.isEmpty { touched.append(state) }
                    state.outgoing.append(chunk)
                } catch {
                    failed.append(state)
                }
            }
            recent.append(change)
        }
        sharing.begin()
        if recent.count > Self.recentCapacity { recent.removeFirst(recent.count - Self.recentCapacity) }
        let end = page[page.count - 1].sequence
        let endID = Array(StreamPosition(end).description.utf8)
        // Most streams carry one target: group only the others.
        var slots: [ObjectIdentifier: Int] = [:]
        slots.reserveCapacity(touched.count)
        var batches: [(first: TargetState, more: [TargetState])] = []
        batches.reserveCapacity(touched.count)
        for state in touched {
            let connection = ObjectIdentifier(state.connection)
            if let slot = slots[connection] {
                batches[slot].more.append(state)
            } else {
                slots[connection] = batches.count
                batches.append((state, []))
            }
        }
        var cache = DocumentJSON()
        // Streams of one target whose listeners share a view and a target id get the same bytes: one event,
        // encoded once (the arrays are shared, not copied), however many streams receive it.
        var frames: [FrameKey: [UInt8]] = [:]
        var deliveries: [(ListenConnection, [UInt8])] = []
        deliveries.reserveCapacity(batches.count)
        for batch in batches {
            let connection = batch.first.connection
            guard !connection.isClosing, !revokedNow(connection, registry) else { continue }
            var bytes: [UInt8]
            if batch.more.isEmpty {
                let state = batch.first
                let key =
                    state.outgoing.count == 1
                    ? FrameKey(target: state.target.id, chunk: ObjectIdentifier(state.outgoing[0])) : nil
                if let key, let frame = frames[key] {
                    bytes = frame
                } else {
                    bytes = ListenEvent.changes(state.target, state.outgoing, id: endID, cache: &cache)
                    if let key { frames[key] = bytes }
                }
            } else {
                // Several targets: one event each, in target id order, with `B~S~T` ids until the last.
                let ordered = ([batch.first] + batch.more).sorted {
                    $0.target.id.utf8.lexicographicallyPrecedes($1.target.id.utf8)
                }
                bytes = []
                for (position, state) in ordered.enumerated() {
                    let id =
                        position == ordered.count - 1
                        ? endID
                        : Array(StreamPosition(base: base, sequence: end, through: state.target.id).description.utf8)
                    bytes += ListenEvent.changes(state.target, state.outgoing, id: id, cache: &cache)
                }
            }
            deliveries.append((connection, bytes))
            connection.feedSide.lastPosition = end
        }
        for state in touched { state.outgoing.removeAll() }
        ListenConnection.send(deliveries, timings: registry.timings, committedAt: page[page.count - 1].time)
        for state in failed {
            registry.logger.warn("listener \(state.target.id) of stream \(state.connection.id) failed; dropped")
            unregister(state)
            state.connection.drop(state.target.id, state.generation)
            state.connection.send(
                ListenEvent.error(
                    state.target.id, APIError.unavailable("the listener could not be kept up to date; add it again")))
        }
    }

    /// An event of one page for one target: its id and its one chunk of changes (`ChangeChunk` is shared by the
    /// listeners of one view).
    private struct FrameKey: Hashable {
        let target: String
        let chunk: ObjectIdentifier
    }

    /// Makes live the prepared targets the feed has caught up with.
    private func registerReady(_ registry: ListenerRegistry) {
        guard !pending.isEmpty else { return }
        var waiting: [Registration] = []
        for registration in pending {
            let state = registration.state
            let connection = state.connection
            guard !connection.isClosing, connection.isCurrent(state.target.id, state.generation) else { continue }
            let urlTarget = connection.requests.withLock { $0.urlTarget }
            if let urlTarget, urlTarget != state.target.id {
                waiting.append(registration)
                continue
            }
            if targets.isEmpty && state.sequence > position {
                // Nobody listens: nothing between the old position and this one needs delivering.
                position = state.sequence
                recent.removeAll()
            }
            guard state.sequence <= position else {
                waiting.append(registration)
                continue
            }
            do {
                try catchUp(registration, registry)
            } catch {
                connection.drop(state.target.id, state.generation)
                connection.send(
                    ListenEvent.error(state.target.id, APIError.unavailable("the listener could not catch up")))
                continue
            }
            activate(registration, registry)
        }
        pending = waiting
    }

    /// Applies the entries between the registration's sequence and the feed's position.
    private func catchUp(_ registration: Registration, _ registry: ListenerRegistry) throws {
        let state = registration.state
        if state.sequence == position { return }
        var entries: [Change]
        if let first = recent.first, first.sequence <= state.sequence + 1 {
            entries = recent.filter { $0.sequence > state.sequence && $0.sequence <= position }
        } else {
            entries = []
            var cursor = state.sequence
            while cursor < position {
                let page = try registry.changePage(after: cursor)
                guard let last = page.last else { break }
                entries += page.filter { $0.sequence <= position }
                cursor = last.sequence
            }
        }
        for change in entries {
            let changes = try state.apply(change, reader: registry.reader)
            if case .resume = registration.mode { registration.replay += changes }
        }
        state.sequence = max(state.sequence, position)
        registration.abandonReplay(registry.configuration.maxReplayChanges)
    }

    private func activate(_ registration: Registration, _ registry: ListenerRegistry) {
        let state = registration.state
        let connection = state.connection
        guard !revokedNow(connection, registry) else { return }
        if let existing = connection.feedSide.targets[state.target.id] { unregister(existing) }
        targets[state.key] = state
        index.insert(state.key, state.target)
        if let key = state.scopedShareKey {
            let group = groups[key] ?? ShareGroup(key: key)
            groups[key] = group
            group.members += 1
            state.group = group
        }
        connection.feedSide.targets[state.target.id] = state
        let id = StreamPosition(position)
        var cache = DocumentJSON()
        var bytes: [UInt8] = []
        switch registration.mode {
        case .snapshot(let reset):
            if let reset { bytes += ListenEvent.reset(state.target.id, reason: reset) }
            bytes += ListenEvent.snapshot(state.target, state.view.documents, id: id, cache: &cache)
        case .resume:
            bytes += ListenEvent.changes(state.target, registration.replay, id: id, cache: &cache)
        }
        connection.send(bytes)
        connection.feedSide.lastPosition = position
        connection.urlTargetSettled(state.target.id)
    }

    /// The change log was pruned past the feed's position: every stream is closed with `overflow`, and each
    /// client's reconnect gets `reset` and a snapshot.
    private func fellBehind(_ registry: ListenerRegistry) {
        registry.logger.warn("listeners fell behind the change log's retention; closing their streams")
        for state in Array(targets.values) {
            unregister(state)
            state.connection.overflow()
        }
        pending.removeAll()
        recent.removeAll()
    }

    // MARK: Timers

    private func timers(_ registry: ListenerRegistry) {
        let now = MonotonicClock.seconds()
        let configuration = registry.configuration
        if let timings = registry.timings, now >= nextTimingsLog {
            nextTimingsLog = now + Self.timingsInterval
            if let summary = timings.drain() {
                registry.logger.debug("realtime: delivery times, ms p50/p99/max (n): \(summary)")
            }
        }
        let heartbeat = now >= nextHeartbeat
        let expiry = now >= nextExpiryCheck
        guard heartbeat || expiry else { return }
        if heartbeat { nextHeartbeat = now + configuration.heartbeatSeconds }
        if expiry { nextExpiryCheck = now + min(1, configuration.authCheckSeconds) }
        // Token expiry is a date (`exp`), so it is compared with the wall clock; every interval here is monotonic.
        let wallNow = configuration.wallClock()
        for connection in registry.allConnections where !connection.isClosing {
            let principal = connection.principal
            if let expiresAt = principal.expiresAt, Double(expiresAt) <= wallNow {
                connection.terminate(
                    ListenEvent.terminal("auth_revoked", code: .tokenExpired, message: "the ID token expired"))
                continue
            }
            let side = connection.feedSide
            if revokedNow(connection, registry) { continue }
            if !principal.bypassesRules && now >= side.nextAuthCheck {
                // The backstop for revocations made by other processes; this process's own end the stream at once
                // (`ListenerRegistry.revoke(where:)`).
                side.nextAuthCheck = now + configuration.authCheckSeconds
                if !registry.access.isStillValid(principal) {
                    connection.revoke(message: "the credentials were revoked or the account disabled or changed")
                    continue
                }
            }
            if heartbeat { connection.send(ListenEvent.heartbeat(id: heartbeatPosition(connection))) }
        }
    }

    /// Checks the credentials of a stream flagged `authCheckDue` (it may have missed a revocation while opening);
    /// ends it and returns `true` when they no longer hold.
    private func revokedNow(_ connection: ListenConnection, _ registry: ListenerRegistry) -> Bool {
        guard connection.authCheckDue.load(ordering: .acquiring),
            connection.authCheckDue.exchange(false, ordering: .acquiringAndReleasing)
        else { return false }
        guard registry.access.isStillValid(connection.principal) else {
            connection.revoke(message: "the credentials were revoked or the account disabled or changed")
            return true
        }
        return false
    }

    /// The position a heartbeat may carry: only when every target the client asked for has had its first event
    /// (so a reconnect resumes all of them from there) and the position moved.
    private func heartbeatPosition(_ connection: ListenConnection) -> StreamPosition? {
        guard position >= 0, position > connection.feedSide.lastPosition else { return nil }
        let requested = connection.requests.withLock { $0.urlTarget == nil ? $0.generations.count : -1 }
        guard requested == connection.feedSide.targets.count else { return nil }
        connection.feedSide.lastPosition = position
        return StreamPosition(position)
    }
}
