import KuraCore
import KuraHTTP
import Synchronization

/// How many queries each caller runs on the worker pool at once (`query.maxConcurrentPerCaller`): a user by uid,
/// an anonymous caller by client address; the administrator is not limited. A caller's queries past its share wait
/// in that caller's own line, holding no thread, and start in order as its running ones finish; so one caller's
/// expensive queries never occupy more than its share of the pool while other callers wait behind them, and an
/// app that sends many small reads at once (the places app sends dozens) is slowed, not refused. Only a line longer
/// than `maxWaiting` is answered 429 `RESOURCE_EXHAUSTED` with `Retry-After: 1`.
final class QueryConcurrency: Sendable {
    /// Queries one caller may run at once.
    let perCaller: Int
    /// Queries one caller may have waiting for a slot; more are refused.
    let maxWaiting: Int
    private let state = Mutex<State>(State())

    private struct State {
        var running: [String: Int] = [:]
        var waiting: [String: [Waiting]] = [:]
    }

    /// A query waiting for its caller's slot, with where to run it and whom to answer.
    private struct Waiting: Sendable {
        var environment: RequestEnvironment
        var work: @Sendable () throws -> Response
        var promise: ResponsePromise
    }

    /// `perCaller` 0 means max(2, `workers` / 4).
    init(perCaller: Int, workers: Int, maxWaiting: Int = 256) {
        self.perCaller = perCaller > 0 ? perCaller : max(2, workers / 4)
        self.maxWaiting = maxWaiting
    }

    /// The key `caller` is counted under (`nil`: not limited).
    static func key(_ caller: Caller, address: String) -> String? {
        switch caller {
        case .admin: nil
        case .user(let claims): "uid:" + claims.uid
        case .anonymous: "address:" + address
        }
    }

    /// Runs `work` on the worker pool in one of `key`'s slots, once one is free (see the type's comment). Off the
    /// event loop (a handler called directly) it runs `work` here, refusing it when the slots are all held.
    func offload(_ key: String?, _ context: KuraContext, _ work: @escaping @Sendable () throws -> Response) throws
        -> Response
    {
        let environment = context.environment
        guard environment.eventLoop.inEventLoop else { return try run(key, work) }
        guard let key else { return environment.offload(work) }
        return .later { [self] promise in
            let job = Waiting(environment: environment, work: work, promise: promise)
            let start = state.withLock { state -> Bool? in
                if Self.take(key, perCaller, &state) { return true }
                guard state.waiting[key, default: []].count < maxWaiting else { return nil }
                state.waiting[key, default: []].append(job)
                return false
            }
            switch start {
            case true?: submit(job, key)
            case false?: break
            case nil: promise.fail(Self.refusal(perCaller: perCaller, waiting: maxWaiting))
            }
        }
    }

    private func submit(_ job: Waiting, _ key: String) {
        do {
            try job.environment.workers.submit(on: job.environment.eventLoop, job.work) { [self] result in
                job.promise.complete(result)
                finished(key)
            }
        } catch {
            job.promise.fail(error)
            finished(key)
        }
    }

    /// A query of `key`'s ended: its slot goes to the caller's next waiting query, else back.
    private func finished(_ key: String) {
        let next = state.withLock { state -> Waiting? in
            if var line = state.waiting[key], !line.isEmpty {
                let next = line.removeFirst()
                state.waiting[key] = line.isEmpty ? nil : line
                return next
            }
            Self.giveBack(key, &state)
            return nil
        }
        if let next { submit(next, key) }
    }

    /// Takes one of `key`'s slots if one is free.
    private static func take(_ key: String, _ perCaller: Int, _ state: inout State) -> Bool {
        let held = state.running[key, default: 0]
        guard held < perCaller else { return false }
        state.running[key] = held + 1
        return true
    }

    /// Gives one of `key`'s slots back.
    private static func giveBack(_ key: String, _ state: inout State) {
        let held = state.running[key, default: 1] - 1
        state.running[key] = held > 0 ? held : nil
    }

    /// Runs `work` here holding one of `key`'s slots; throws 429 `RESOURCE_EXHAUSTED` when they are all held.
    func run<T>(_ key: String?, _ work: () throws -> T) throws -> T {
        guard let key else { return try work() }
        guard state.withLock({ Self.take(key, perCaller, &$0) }) else {
            throw Self.refusal(perCaller: perCaller, waiting: 0)
        }
        defer { state.withLock { Self.giveBack(key, &$0) } }
        return try work()
    }

    private static func refusal(perCaller: Int, waiting: Int) -> APIError {
        APIError(
            .resourceExhausted, status: 429,
            message: "this caller already runs \(perCaller) queries at once (query.maxConcurrentPerCaller)"
                + (waiting > 0 ? " with \(waiting) more waiting" : "") + "; retry when one has finished",
            headers: [("Retry-After", "1")])
    }

    /// Slots held now, for tests.
    func held(_ key: String) -> Int { state.withLock { $0.running[key, default: 0] } }
}
