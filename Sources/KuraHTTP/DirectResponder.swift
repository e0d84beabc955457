import KuraCore
import Synchronization

/// Answers requests with no socket: a responder (a router) runs on an event loop of its own with a worker pool, as
/// under `HTTPServer`, but requests go in as values and responses come out as values — deferred ones (offloaded
/// work, `.later`) once completed; streams are returned unstarted. The engine's request path without parsing and
/// the wire, for handler tests (Hummingbird's `.router` test mode; `HTTPServer` on a socket is the `.live` one).
public final class DirectResponder: Sendable {
    private let loop: EventLoop
    private let responder: any HTTPResponder
    private let cors: CORSPolicy
    private let environment: RequestEnvironment
    private let stopped = Atomic<Bool>(false)

    /// Runs `responder` with `configuration`'s worker pool size, CORS policy and error verbosity.
    public convenience init(
        responder: any HTTPResponder, configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
        logger: Logger = Logger(level: .error)
    ) {
        self.init(
            responder: responder, configuration: configuration,
            workers: WorkerPool(threads: configuration.workerThreads, maxQueued: configuration.workerQueueLimit),
            logger: logger, loopIndex: 0)
    }

    /// Runs the responder of `server` (started or not) with its configuration and worker pool. Its loop is numbered
    /// past the server's loops, so per-loop state (`LoopLocal`) is never shared with them: handlers take their
    /// off-loop path here.
    public convenience init(server: HTTPServer) {
        self.init(
            responder: server.responder, configuration: server.configuration, workers: server.workers,
            logger: server.logger, loopIndex: max(1, server.configuration.eventLoops))
    }

    private init(
        responder: any HTTPResponder, configuration: HTTPServerConfiguration, workers: WorkerPool, logger: Logger,
        loopIndex: Int
    ) {
        self.responder = responder
        cors = configuration.cors
        loop = EventLoop(index: loopIndex)
        environment = RequestEnvironment(
            eventLoop: loop, workers: workers, logger: logger, verboseErrors: configuration.verboseErrors)
        loop.start()
    }

    /// Routes `request` on the loop, as the engine does (CORS preflights first), and waits up to `timeout` for its
    /// complete response; `nil` when none came in time.
    public func respond(to request: Request, timeout: Duration = .seconds(10)) -> Response? {
        let answer = Answer()
        loop.execute { [self] in
            let response =
                cors.preflightResponse(to: request) ?? responder.respond(to: request, environment: environment)
            settle(response, requestID: request.requestID) { answer.set($0) }
        }
        return answer.wait(timeout: timeout)
    }

    /// Runs deferred responses to completion (a promise may complete with another deferred response, as under
    /// `Connection.deliver`), then hands the final one to `finish`. Loop thread only.
    private func settle(_ response: Response, requestID: String, _ finish: @escaping @Sendable (Response) -> Void) {
        guard case .deferred(let start) = response.body else { return finish(response) }
        start(
            ResponsePromise(
                loop: loop, requestID: requestID, logger: environment.logger,
                verboseErrors: environment.verboseErrors
            ) { [self] next in settle(next, requestID: requestID, finish) })
    }

    /// Stops the loop once work in flight is done, and joins its thread. Call once, at the end.
    public func shutdown() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let loop = self.loop
        loop.execute { loop.closeWakeup() }
        loop.join()
    }

    /// One response handed from the loop to the waiting caller.
    private final class Answer: @unchecked Sendable {
        // `@unchecked`: `response` is written once, before `ready` is raised, and read only after `ready` was
        // seen raised (the Wakeup's lock orders the two).
        private var response: Response?
        private let ready = Wakeup()

        func set(_ response: Response) {
            self.response = response
            ready.raise()
        }

        func wait(timeout: Duration) -> Response? {
            let nanos = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
            guard ready.wait(timeoutNanoseconds: UInt64(max(0, nanos))) else { return nil }
            return response
        }
    }
}
