/// `GET /metrics` (`metrics.*` settings, docs/metrics.md).
public struct MetricsConfiguration: Sendable {
    /// Requests are counted and `/metrics` answers (`metrics.enabled`); off, `/metrics` is an unknown path.
    public var enabled = true
    /// A bearer token `/metrics` accepts besides administrators, so a scraper needs no admin rights
    /// (`metrics.token`, `metrics.tokenFile`).
    public var token: String?
    /// This node's name, the `kura_node` label of every sample (`metrics.node`); default `<hostname>:<port>`.
    public var node: String?
    /// How far back `GET /api/admin/traffic` (and the console's traffic chart) reaches, in seconds
    /// (`metrics.historySeconds`); kept in intervals of 10 s.
    public var historySeconds = 900

    public init() {}

    /// Shortest token accepted: a scrape token guards the server's inner numbers, so it is no guessable word.
    static let minimumTokenLength = 16

    /// `value` as a token, or a configuration error naming `key` for one too short or with spaces.
    static func checkedToken(_ value: String, _ key: String) throws -> String {
        let token = value.trimmingSpaces()
        guard token.utf8.count >= minimumTokenLength else {
            throw ConfigurationError("\(key): the token must be at least \(minimumTokenLength) characters long")
        }
        guard !token.contains(where: { $0 == " " || $0 == "\t" }) else {
            throw ConfigurationError("\(key): the token cannot contain spaces")
        }
        return token
    }
}
