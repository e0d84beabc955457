import KuraCore
import KuraModel

/// What the engine asks for each request; the router is the usual one.
public protocol HTTPResponder: Sendable {
    /// Answers `request`. Never throws: errors are already turned into responses (see `ErrorResponses`).
    func respond(to request: Request, environment: RequestEnvironment) -> Response

    /// The registered routes, in order: the labels of the request metrics. A responder that notes its matches in
    /// `RequestEnvironment.matchedRoute` notes indexes into this list.
    var routeTemplates: [(method: HTTPMethod, pattern: String)] { get }
}

extension HTTPResponder {
    public var routeTemplates: [(method: HTTPMethod, pattern: String)] { [] }
}

/// Per-request facilities the engine hands to the application.
public struct RequestEnvironment: Sendable {
    /// The loop the request arrived on; deferred responses resume here.
    public let eventLoop: EventLoop
    public let workers: WorkerPool
    public let logger: Logger
    /// Unexpected errors show their details in the answer (`HTTPServerConfiguration.verboseErrors`).
    public let verboseErrors: Bool
    /// Where the router notes which route it matched, for the request metrics; `nil` when they are off.
    public let matchedRoute: MatchedRoute?

    public init(
        eventLoop: EventLoop, workers: WorkerPool, logger: Logger, verboseErrors: Bool = false,
        matchedRoute: MatchedRoute? = nil
    ) {
        self.eventLoop = eventLoop
        self.workers = workers
        self.logger = logger
        self.verboseErrors = verboseErrors
        self.matchedRoute = matchedRoute
    }
}

/// The one place where thrown errors become responses.
public enum ErrorResponses {
    /// A `APIError` (or a model `ValidationError`, 400) becomes its own status and JSON body; anything else becomes an opaque 500 `INTERNAL` whose
    /// message carries only the request id, with the details in the log (and, when `verbose`, in the message too).
    public static func response(
        for error: any Error, requestID: String, logger: Logger, verbose: Bool = false
    ) -> Response {
        if let error = APIError(answering: error) {
            if error.status >= 500 { logger.warn("request \(requestID) failed: \(error)") }
            return Response(error: error)
        }
        logger.error("request \(requestID) failed with an unexpected error: \(String(reflecting: error))")
        var answer = APIError.internalError(requestID: requestID)
        if verbose { answer.message += ": \(String(reflecting: error))" }
        return Response(error: answer)
    }
}

extension RequestEnvironment {
    /// Runs `work` on the worker pool and answers with its result on this request's loop.
    /// Errors thrown by `work` (or a full queue) go through `ErrorResponses` like any other.
    public func offload(_ work: @escaping @Sendable () throws -> Response) -> Response {
        let workers = self.workers
        let loop = self.eventLoop
        return .later { promise in
            do {
                try workers.submit(on: loop, work) { result in promise.complete(result) }
            } catch {
                promise.fail(error)
            }
        }
    }
}
