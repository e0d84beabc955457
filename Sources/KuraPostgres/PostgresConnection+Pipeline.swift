import CPostgres

/// One statement of a pipeline (`PostgresConnection.pipeline`), with the arguments `query` takes.
public struct PipelinedStatement: Sendable {
    public var sql: String
    public var parameters: [PostgresValue]
    public var resultFormat: PostgresResultFormat
    public var prepared: Bool

    public init(
        _ sql: String, _ parameters: [PostgresValue] = [], resultFormat: PostgresResultFormat = .text,
        prepared: Bool = false
    ) {
        self.sql = sql
        self.parameters = parameters
        self.resultFormat = resultFormat
        self.prepared = prepared
    }
}

extension PostgresConnection {
    /// Sends `statements` at once in libpq's pipeline mode and waits once for all their results: one round trip
    /// instead of one per statement (say, a transaction's last statement and its `COMMIT`). They run in order, as
    /// they would one by one; the first that fails is thrown and the server skips the rest (inside a transaction,
    /// the transaction is then aborted, as after any failed statement). Statements not prepared yet on this
    /// session are prepared first, one round trip each.
    @discardableResult
    public func pipeline(_ statements: [PipelinedStatement]) throws -> [PostgresResult] {
        try results(of: try send(statements))
    }

    /// A pipeline sent by `send`, whose results `results(of:)` reads.
    public struct SentPipeline: Sendable {
        fileprivate let statements: [String]
        fileprivate let sent: Int
        fileprivate let synced: Bool
    }

    /// The first half of `pipeline`: sends the statements and returns without waiting, so the caller can do
    /// other work (on other connections) while the server runs them. The connection stays in pipeline mode,
    /// usable for nothing else, until `results(of:)` read the answers.
    ///
    /// A pipeline may be sent while another is in flight on the connection: the server runs it after that one
    /// (its results are read after that one's). Preparing a statement takes a round trip of its own, which
    /// cannot be made then, so a statement marked `prepared` that this session has not prepared yet is sent
    /// unprepared instead.
    public func send(_ statements: [PipelinedStatement]) throws -> SentPipeline {
        finishSentQuery()
        let encoded = statements.map { $0.parameters.map(EncodedParameter.init) }
        // Preparing one statement never deallocates another of the same pipeline.
        var kept: Set<String> = []
        let following = pipelinesInFlight > 0
        let names = try zip(statements, encoded).map { statement, encoded -> String? in
            guard statement.prepared else { return nil }
            if following {
                return preparedStatements.use(PreparedStatements.Key(sql: statement.sql, types: encoded.map(\.type)))
            }
            let name = try preparedName(for: statement.sql, encoded, keeping: kept)
            kept.insert(name)
            return name
        }
        guard PQenterPipelineMode(raw) == 1 else {
            throw PostgresError(kind: .statement, message: "entering pipeline mode: \(Self.errorMessage(raw))")
        }
        var sent = 0
        for (index, statement) in statements.enumerated() {
            let ok = withParameterArrays(encoded[index]) { types, values, lengths, formats in
                let count = Int32(encoded[index].count)
                let format = statement.resultFormat.rawValue
                return if let name = names[index] {
                    PQsendQueryPrepared(raw, name, count, values, lengths, formats, format)
                } else {
                    PQsendQueryParams(raw, statement.sql, count, types, values, lengths, formats, format)
                }
            }
            if ok != 1 { break }
            sent += 1
        }
        let synced = PQpipelineSync(raw) == 1
        pipelinesInFlight += 1
        return SentPipeline(statements: statements.map(\.sql), sent: sent, synced: synced)
    }

    /// The second half of `pipeline`: waits for the results of `sent` (the oldest pipeline in flight) and leaves
    /// pipeline mode when no other pipeline is in flight.
    @discardableResult
    public func results(of sent: SentPipeline) throws -> [PostgresResult] {
        pipelinesInFlight = max(0, pipelinesInFlight - 1)
        var results: [PostgresResult] = []
        var failure: (any Error)?
        for index in 0..<sent.sent {
            guard isConnected, let result = PQgetResult(raw) else {
                failure = failure ?? lost("reading a pipelined result")
                break
            }
            if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                PQclear(result)
            } else {
                do { results.append(try check(result, doing: sent.statements[index])) } catch {
                    failure = failure ?? error
                }
            }
            // Each statement's results end with a NULL.
            while let extra = PQgetResult(raw) { PQclear(extra) }
        }
        if sent.synced && isConnected {
            // The sync point's own result.
            while let result = PQgetResult(raw) {
                let status = PQresultStatus(result)
                PQclear(result)
                if status == PGRES_PIPELINE_SYNC { break }
            }
        }
        if (pipelinesInFlight == 0 && PQexitPipelineMode(raw) != 1) || sent.sent < sent.statements.count
            || !sent.synced
        {
            failure = failure ?? lost("sending a pipeline")
        }
        if let failure { throw failure }
        return results
    }

    /// Whether the answer to the oldest pipeline in flight has begun to arrive, so `results(of:)` will not wait
    /// for the server to run it (reads what the socket holds; never waits). Throws when the connection is lost.
    public func pipelineAnswerArrived() throws -> Bool {
        guard PQconsumeInput(raw) == 1 else { throw lost("reading a pipelined result") }
        return PQisBusy(raw) == 0
    }

    private func lost(_ doing: String) -> PostgresError {
        PostgresError(
            kind: isConnected ? .statement : .connectionLost, message: "\(doing): \(Self.errorMessage(raw))")
    }
}
