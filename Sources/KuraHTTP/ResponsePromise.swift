import KuraCore
import KuraModel
import Synchronization

/// The engine's end of a deferred response. Complete it exactly once, from any thread; the response is written
/// on the connection's loop in request order. A promise dropped without completion answers 500 `INTERNAL`.
public final class ResponsePromise: Sendable {
    /// Where the response goes.
    private enum Destination: Sendable {
        /// Written on a connection, in its request order.
        case connection(Connection, Exchange)
        /// Handed to `deliver` on `loop` (`DirectResponder`: no socket).
        case direct(loop: EventLoop, requestID: String, deliver: @Sendable (Response) -> Void)
    }

    private let destination: Destination
    private let logger: Logger
    private let verboseErrors: Bool
    private let completed = Atomic<Bool>(false)

    init(connection: Connection, exchange: Exchange) {
        destination = .connection(connection, exchange)
        logger = connection.loop.logger
        verboseErrors = connection.loop.config.verboseErrors
    }

    init(
        loop: EventLoop, requestID: String, logger: Logger, verboseErrors: Bool,
        deliver: @escaping @Sendable (Response) -> Void
    ) {
        destination = .direct(loop: loop, requestID: requestID, deliver: deliver)
        self.logger = logger
        self.verboseErrors = verboseErrors
    }

    deinit {
        guard !completed.load(ordering: .acquiring) else { return }
        logger.error("request \(requestID): handler dropped its response promise")
        send(Response(error: APIError.internalError(requestID: requestID)))
    }

    /// The request id, for logs.
    public var requestID: String {
        switch destination {
        case .connection(_, let exchange): exchange.requestID
        case .direct(_, let requestID, _): requestID
        }
    }

    public func succeed(_ response: Response) {
        guard !completed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        send(response)
    }

    public func fail(_ error: any Error) {
        succeed(ErrorResponses.response(for: error, requestID: requestID, logger: logger, verbose: verboseErrors))
    }

    public func complete(_ result: Result<Response, any Error>) {
        switch result {
        case .success(let response): succeed(response)
        case .failure(let error): fail(error)
        }
    }

    /// Hands `response` over on the destination's loop.
    private func send(_ response: Response) {
        switch destination {
        case .connection(let connection, let exchange):
            connection.onLoop { connection.deliver(response, for: exchange) }
        case .direct(let loop, _, let deliver):
            if loop.inEventLoop { deliver(response) } else { loop.execute { deliver(response) } }
        }
    }
}
