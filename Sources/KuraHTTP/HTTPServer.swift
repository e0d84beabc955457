import CLibUV
import KuraCore
import KuraModel
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP/1.1 server: one libuv loop per core, each with its own SO_REUSEPORT listener, sharing one responder
/// and one worker pool. `start()` binds and runs; `shutdown()` drains gracefully; `wait()` blocks until done.
///
/// SO_REUSEPORT is for this process's loops only: `start()` refuses a port another process listens on ("port N
/// is already in use") instead of letting the kernel spread connections over two servers (docs/architecture.md).
public final class HTTPServer: @unchecked Sendable {
    // `@unchecked`: `loops` and `port` are set by `start()` before any loop runs and only read after; `signalHandles`
    // is touched on the first loop's thread only.
    public let configuration: HTTPServerConfiguration
    public let workers: WorkerPool
    public let logger: Logger
    /// Random per-process prefix of generated request ids.
    let instanceID = SecureRandom.hex(3)

    let responder: any HTTPResponder
    private var loops: [HTTPLoop] = []
    private let openConnections = Atomic<Int>(0)
    private let state = Mutex<State>(.idle)
    private let joining = Mutex<Bool>(false)
    private var signalHandles: [UnsafeMutablePointer<uv_signal_t>] = []
    /// The descriptor holding this process's claim on the port's name (`kura_claim_port_name`); -1 when none.
    private let portClaim = Mutex<Int32>(-1)
    /// The port actually bound (useful with port 0).
    public private(set) var port: Int = 0

    private enum State { case idle, running, draining, stopped }

    public init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.workers = WorkerPool(threads: configuration.workerThreads, maxQueued: configuration.workerQueueLimit)
        let routes = responder.routeTemplates
        routeLabels = routes.map { ($0.method.description, $0.pattern) }
        loopMetrics =
            configuration.metrics
            ? (0..<max(1, configuration.eventLoops)).map { _ in
                RequestMetrics(routeCount: routes.count, historyIntervals: configuration.metricsHistoryIntervals)
            } : []
    }

    /// Each loop's request counts (none when `configuration.metrics` is off).
    private let loopMetrics: [RequestMetrics]
    private let routeLabels: [(method: String, route: String)]

    /// Requests answered so far by route and status code, with their latency histograms, over every loop; only
    /// routes that have answered. Empty when `configuration.metrics` is off. Any thread.
    public func requestMetrics() -> [RouteRequestSample] {
        RequestMetrics.samples(loopMetrics, labels: routeLabels)
    }

    /// The requests answered per interval over the last `metricsHistoryIntervals` intervals (those since the
    /// server was made), over every loop, oldest first; `nil` when `configuration.metrics` is off. Any thread.
    public func trafficHistory() -> TrafficHistorySnapshot? {
        guard !loopMetrics.isEmpty else { return nil }
        return TrafficHistory.snapshot(
            loopMetrics.map(\.history), now: MonotonicClock.nanoseconds(), since: createdNanos)
    }

    /// When the server was made: the first interval of its history starts here.
    private let createdNanos = MonotonicClock.nanoseconds()

    /// Binds every loop's listener and starts the loop threads.
    public func start() throws {
        try state.withLock { state in
            guard state == .idle else { throw HTTPServerError.alreadyStarted }
            state = .running
        }
        signal(SIGPIPE, SIG_IGN)
        raiseOpenFileLimit()
        var address = try Self.resolve(host: configuration.host, port: configuration.port)
        if configuration.port != 0 { try claimPort(configuration.port, probing: address) }
        let count = max(1, configuration.eventLoops)
        do {
            for index in 0..<count {
                let loop = HTTPLoop(
                    eventLoop: EventLoop(index: index), server: self, responder: responder, workers: workers,
                    logger: logger, metrics: loopMetrics.isEmpty ? nil : loopMetrics[index])
                let family = address.family
                try address.withSockaddr { try loop.listen(on: $0, family: family) }
                if index == 0 {
                    port = loop.boundPort()
                    address.port = port  // later loops join the same (possibly ephemeral) port
                    // The kernel chose a port no one listens on; its name is claimed too (best effort), so that a
                    // later server asked for this port number sees it taken.
                    if configuration.port == 0 { try? claimPort(port, probing: nil) }
                }
                loop.startTimer()
                loops.append(loop)
            }
        } catch {
            releasePort()
            throw error
        }
        for loop in loops { loop.eventLoop.start() }
    }

    /// Makes sure no other process serves `port`: claims the port's name (atomic among Kura processes, see
    /// `kura_claim_port_name`), then, when `probing` is given, probe-binds it without SO_REUSEPORT, which fails
    /// while any other socket listens there (another program, or a server that does not take the claim).
    private func claimPort(_ port: Int, probing: Address?) throws {
        let fd = kura_claim_port_name(Int32(port))
        if fd == -EADDRINUSE { throw HTTPServerError.portInUse(port) }
        if fd >= 0 { portClaim.withLock { $0 = fd } }
        // Without abstract sockets (not Linux) the probe alone stands.
        guard var address = probing else { return }
        if address.withSockaddr({ kura_probe_address($0) }) == EADDRINUSE {
            releasePort()
            throw HTTPServerError.portInUse(port)
        }
    }

    /// Gives up the port's name.
    private func releasePort() {
        portClaim.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    /// Stops accepting and finishes in-flight requests (up to `shutdownGraceMs`), then stops the loops.
    /// Returns at once; `wait()` blocks until the loops have ended.
    public func shutdown() {
        let proceed = state.withLock { state -> Bool in
            guard state == .running else { return false }
            state = .draining
            return true
        }
        guard proceed else { return }
        logger.info("shutting down: no new connections; finishing in-flight requests")
        for loop in loops { loop.eventLoop.execute { loop.drain() } }
    }

    /// Blocks until every loop thread has ended. Idempotent: later calls return at once.
    public func wait() {
        joining.withLock { joined in
            guard !joined else { return }
            for loop in loops { loop.eventLoop.join() }
            joined = true
        }
        releasePort()
        state.withLock { $0 = .stopped }
    }

    /// Blocks SIGINT and SIGTERM on the calling thread, so that threads started afterwards (event loops, workers,
    /// the store's writer) inherit them blocked. Call first thing in `main`; `installSignalHandlers` unblocks them
    /// once a handler is in place, so a signal arriving during start-up waits for it instead of killing the process.
    public static func blockTerminationSignals() {
        var signals = Self.terminationSignals
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    private static var terminationSignals: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        return signals
    }

    /// Shuts down on SIGINT or SIGTERM; a second signal exits at once. Returns once the handlers are installed,
    /// then unblocks the signals on the calling thread (a process may also inherit them blocked, from a test runner
    /// say; a blocked SIGTERM would wait forever). Delivered there, libuv forwards them to the loop.
    public func installSignalHandlers() {
        guard let first = loops.first else { return }
        let installed = Wakeup()
        first.eventLoop.execute { [self] in
            for signum in [SIGINT, SIGTERM] {
                let handle = allocateHandle(uv_signal_t.self)
                uv_signal_init(first.eventLoop.uvLoop, handle)
                handle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
                uv_signal_start(
                    handle,
                    { handle, signum in
                        let server = Unmanaged<HTTPServer>.fromOpaque(handle!.pointee.data).takeUnretainedValue()
                        server.receivedSignal(signum)
                    }, signum)
                uv_unref(asHandle(handle))
                signalHandles.append(handle)
            }
            installed.raise()
        }
        // A pending signal delivered before libuv's handler exists would take the default action (exit).
        installed.wait()
        var signals = Self.terminationSignals
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    private func receivedSignal(_ signum: Int32) {
        let again = state.withLock { $0 != .running }
        if again {
            logger.warn("second signal \(signum): exiting now")
            exit(1)
        }
        logger.info("received signal \(signum)")
        for handle in signalHandles {
            uv_signal_stop(handle)
            uv_close(asHandle(handle), freeHandleOnClose)
        }
        signalHandles.removeAll()
        shutdown()
    }

    // MARK: Connection accounting

    /// Counts a new connection; false when the limit is reached.
    func admitConnection() -> Bool {
        let (_, now) = openConnections.add(1, ordering: .relaxed)  // (old, new)
        if now > configuration.maxConnections {
            openConnections.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func releaseConnection() { openConnections.subtract(1, ordering: .relaxed) }

    /// Connections open now, across all loops.
    public var connectionCount: Int { openConnections.load(ordering: .relaxed) }

    /// Ten thousand connections need more descriptors than a default soft limit of 1024.
    private func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let wanted = rlim_t(configuration.maxConnections + 256)
        if limit.rlim_cur < wanted {
            limit.rlim_cur = min(wanted, limit.rlim_max)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
    }

    // MARK: Addresses

    private struct Address {
        var storage = sockaddr_storage()
        var family: Int32
        var port: Int {
            get { 0 }
            set {
                let port = UInt16(newValue).bigEndian
                withUnsafeMutablePointer(to: &storage) { pointer in
                    if family == AF_INET6 {
                        pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port = port }
                    } else {
                        pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port = port }
                    }
                }
            }
        }
        mutating func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>) throws -> T) rethrows -> T {
            try withUnsafePointer(to: &storage) { try $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
    }

    private static func resolve(host: String, port: Int) throws -> Address {
        guard (0...65535).contains(port) else { throw HTTPServerError.portOutOfRange(port) }
        let literal = host == "localhost" ? "127.0.0.1" : host
        var address = Address(family: AF_INET)
        let ok4 = withUnsafeMutablePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { uv_ip4_addr(literal, Int32(port), $0) == 0 }
        }
        if ok4 { return address }
        address = Address(family: AF_INET6)
        let ok6 = withUnsafeMutablePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { uv_ip6_addr(literal, Int32(port), $0) == 0 }
        }
        if ok6 { return address }
        throw HTTPServerError.invalidHost(host)
    }
}
