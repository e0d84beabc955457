import KuraCore
import KuraHTTP
import KuraModel
import KuraStore

/// How every document write is answered: decode (and check) it, hand it to the store's group commit, and answer
/// once it is durable, without any thread waiting for the fsync in between. (A worker thread per waiting write
/// capped group commit at a handful of writes per fsync: measured 0.01× nginx for creates, bench/docs.sh.)
struct DurableCommit: Sendable {
    let store: any DocumentStore
    /// Bodies up to this size are decoded on the event loop (microseconds); larger ones on the worker pool.
    static let decodeOnLoopBytes = 64 << 10
    /// The lines that put this node's rule-checked writes to one document one after the other (`nil`: admin
    /// writes only).
    var lines: DocumentLines? = nil
    /// A rule-checked commit whose pinned documents changed anyway (a write from another node, or the
    /// administrator's) is checked again and retried, holding its lines, up to this many times in all.
    static let maxAttempts = 50

    /// The writes to commit.
    struct Plan: Sendable {
        var writes: [Write]
        /// The server added preconditions (pinning what the security rules saw): a 412 means another write came
        /// in between, so prepare again from a fresh read instead of answering it.
        var retryOnFailedPrecondition = false
    }

    enum Answer {
        /// Build the response on the loop from the commit's results.
        case onLoop
        /// Build it on the worker pool (it reads the store, e.g. the document as written).
        case onWorkerPool
    }

    enum Preparation {
        /// On the loop for small bodies, else on the worker pool. A preparation that throws `MustRunOnWorkerPool`
        /// on the loop is run again on the pool.
        case auto
        /// Always on the worker pool (it reads the store).
        case onWorkerPool
    }

    /// Commits what `prepare` returns (admin writes: no checks, no retries).
    func respond(
        to request: Request, _ environment: RequestEnvironment, answer: Answer = .onLoop,
        prepare: @escaping @Sendable () throws -> [Write],
        respond: @escaping @Sendable ([WriteResult]) throws -> Response
    ) -> Response {
        self.respond(
            to: request, environment, answer: answer, preparation: .auto, plan: { _ in Plan(writes: try prepare()) },
            respond: respond)
    }

    /// Commits the plan `plan` makes (called with whether it runs on the event loop), preparing it again after a
    /// 412 when it asks for retries; after `maxAttempts` the answer is 409 `ABORTED`.
    func respond(
        to request: Request, _ environment: RequestEnvironment, answer: Answer = .onLoop, preparation: Preparation,
        plan: @escaping @Sendable (_ onLoop: Bool) throws -> Plan,
        respond: @escaping @Sendable ([WriteResult]) throws -> Response
    ) -> Response {
        let store = self.store
        let lines = self.lines
        let onLoop = preparation == .auto && request.body.count <= Self.decodeOnLoopBytes
        return .later { promise in
            let attempt = CommitAttempt(
                store: store, lines: lines, environment: environment, answer: answer, plan: plan, respond: respond,
                promise: promise)
            if onLoop { attempt.run(onLoop: true) } else { attempt.runOnWorkerPool() }
        }
    }
}

/// One commit from preparation to answer, across its retries.
///
/// A plan with pinning preconditions takes its documents' lines (`DocumentLines`) before it commits: when it had to
/// wait, the documents have changed since its read, so it is prepared again first. It keeps the lines through its
/// retries and gives them back with the answer.
private final class CommitAttempt: Sendable {
    let store: any DocumentStore
    let lines: DocumentLines?
    let environment: RequestEnvironment
    let answer: DurableCommit.Answer
    let plan: @Sendable (_ onLoop: Bool) throws -> DurableCommit.Plan
    let respond: @Sendable ([WriteResult]) throws -> Response
    let promise: ResponsePromise

    init(
        store: any DocumentStore, lines: DocumentLines?, environment: RequestEnvironment,
        answer: DurableCommit.Answer,
        plan: @escaping @Sendable (_ onLoop: Bool) throws -> DurableCommit.Plan,
        respond: @escaping @Sendable ([WriteResult]) throws -> Response, promise: ResponsePromise
    ) {
        self.store = store
        self.lines = lines
        self.environment = environment
        self.answer = answer
        self.plan = plan
        self.respond = respond
        self.promise = promise
    }

    func runOnWorkerPool(attempt: Int = 1, holding: DocumentLines.Held? = nil) {
        do {
            try environment.workers.submit(
                on: environment.eventLoop, { self.run(onLoop: false, attempt: attempt, holding: holding) }
            ) { _ in }
        } catch {
            fail(error, holding: holding)
        }
    }

    func run(onLoop: Bool, attempt: Int = 1, holding: DocumentLines.Held? = nil) {
        let prepared: DurableCommit.Plan
        do {
            prepared = try plan(onLoop)
        } catch is MustRunOnWorkerPool where onLoop {
            return runOnWorkerPool(attempt: attempt, holding: holding)
        } catch {
            return fail(error, holding: holding)
        }
        guard holding == nil, prepared.retryOnFailedPrecondition, let lines else {
            return commit(prepared, attempt: attempt, holding: holding)
        }
        lines.enter(prepared.writes.map(\.path)) { [self] held, waited in
            if waited {
                runOnWorkerPool(attempt: attempt, holding: held)
            } else {
                commit(prepared, attempt: attempt, holding: held)
            }
        }
    }

    private func commit(_ prepared: DurableCommit.Plan, attempt: Int, holding: DocumentLines.Held?) {
        store.commit(prepared.writes) { [self] result in
            // On the store's completion queue: hand off at once, later batches' completions wait for us.
            switch result {
            case .failure(let error as APIError)
            where error.code == .failedPrecondition && prepared.retryOnFailedPrecondition:
                guard attempt < DurableCommit.maxAttempts else {
                    return fail(
                        APIError.aborted(
                            "the documents kept changing while the security rules were checked; retry"),
                        holding: holding)
                }
                runOnWorkerPool(attempt: attempt + 1, holding: holding)
            case .failure(let error):
                fail(error, holding: holding)
            case .success(let results):
                if let holding { lines?.leave(holding) }
                finish(results)
            }
        }
    }

    private func fail(_ error: any Error, holding: DocumentLines.Held?) {
        if let holding { lines?.leave(holding) }
        promise.fail(error)
    }

    private func finish(_ results: [WriteResult]) {
        let respond = self.respond
        let promise = self.promise
        switch answer {
        case .onLoop:
            environment.eventLoop.execute { promise.complete(Result { try respond(results) }) }
        case .onWorkerPool:
            do {
                try environment.workers.submit(on: environment.eventLoop, { try respond(results) }) {
                    promise.complete($0)
                }
            } catch {
                promise.fail(error)
            }
        }
    }
}

extension DurableCommit {
    /// Commits `writes` for `caller`: as they are for the administrator; for everyone else checked against the
    /// security rules first (on the worker pool when existing documents must be read) and retried when a concurrent
    /// write changes what the check saw.
    func respond(
        to request: Request, _ environment: RequestEnvironment, caller: Caller, access: DataAccess,
        readsExisting: Bool = true, answer: Answer = .onLoop, writes: @escaping @Sendable () throws -> [Write],
        respond: @escaping @Sendable ([WriteResult]) throws -> Response
    ) -> Response {
        if case .admin = caller {
            return self.respond(to: request, environment, answer: answer, prepare: writes, respond: respond)
        }
        return self.respond(
            to: request, environment, answer: answer, preparation: readsExisting ? .onWorkerPool : .auto,
            plan: { onLoop in
                try access.authorize(try writes(), caller: caller, readsExisting: readsExisting, onLoop: onLoop)
            }, respond: respond)
    }
}
