import KuraPostgres

extension PostgresConnectionPool {
    /// `withConnection` for work that may safely run twice (reads, and writes whose second run changes nothing):
    /// when the connection turns out to be broken (the server restarted, a standby was promoted, an idle connection
    /// was cut), runs `body` once more on a connection the pool re-opens. A pooled connection only learns that it is
    /// broken when a statement fails, so without this the first call on each pooled connection after a failover
    /// would fail. Work that must not run twice (an insert, rotating a refresh token) uses `withConnection`.
    @discardableResult
    func withIdempotentConnection<Result>(_ body: (PostgresConnection) throws -> Result) throws -> Result {
        do {
            return try withConnection(body)
        } catch let error as PostgresError where error.isConnectionFailure {
            return try withConnection(body)
        }
    }
}
