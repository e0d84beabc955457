import KuraCore
import KuraModel
import Synchronization

/// The engine's end of a deferred response. Complete it exactly once, from any thread; the response is written
/// on the connection's loop in request order. A promise dropped without completion answers 500 `INTERNAL`.
public final class ResponsePromise: Sendable {
    private let connection: Connection
    private let exchange: Exchange
    private let completed = Atomic<Bool>(false)

    init(connection: Connection, exchange: Exchange) {
        self.connection = connection
        self.exchange = exchange
    }

    deinit {
        guard !completed.load(ordering: .acquiring) else { return }
        let connection = self.connection
        let exchange = self.exchange
        let error = APIError.internalError(requestID: exchange.requestID)
        connection.loop.logger.error("request \(exchange.requestID): handler dropped its response promise")
        connection.onLoop { connection.deliver(Response(error: error), for: exchange) }
    }

    /// The request id, for logs.
    public var requestID: String { exchange.requestID }

    public func succeed(_ response: Response) {
        guard !completed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let connection = self.connection
        let exchange = self.exchange
        connection.onLoop { connection.deliver(response, for: exchange) }
    }

    public func fail(_ error: any Error) {
        let loop = connection.loop
        succeed(
            ErrorResponses.response(
                for: error, requestID: exchange.requestID, logger: loop.logger, verbose: loop.config.verboseErrors))
    }

    public func complete(_ result: Result<Response, any Error>) {
        switch result {
        case .success(let response): succeed(response)
        case .failure(let error): fail(error)
        }
    }
}
