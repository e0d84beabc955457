import KuraHTTP

/// Kura's per-request context. Later issues add the caller's identity here.
public struct KuraContext: RequestContext {
    public let environment: RequestEnvironment
    public init(environment: RequestEnvironment) { self.environment = environment }
}
