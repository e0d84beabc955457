import KuraCore
import Synchronization

/// How many queries each caller runs on the worker pool at once (`query.maxConcurrentPerCaller`): a user by uid,
/// an anonymous caller by client address; the administrator is not limited. A query past its caller's share is
/// answered at once with 429 `RESOURCE_EXHAUSTED` and `Retry-After: 1` rather than queued, so that one caller's
/// expensive queries cannot occupy the whole pool while others wait behind them.
final class QueryConcurrency: Sendable {
    /// Queries one caller may run at once.
    let perCaller: Int
    private let running = Mutex<[String: Int]>([:])

    /// `perCaller` 0 means max(2, `workers` / 4).
    init(perCaller: Int, workers: Int) {
        self.perCaller = perCaller > 0 ? perCaller : max(2, workers / 4)
    }

    /// The key `caller` is counted under (`nil`: not limited).
    static func key(_ caller: Caller, address: String) -> String? {
        switch caller {
        case .admin: nil
        case .user(let claims): "uid:" + claims.uid
        case .anonymous: "address:" + address
        }
    }

    /// Runs `work` holding one of `key`'s slots; throws 429 `RESOURCE_EXHAUSTED` when they are all held.
    func run<T>(_ key: String?, _ work: () throws -> T) throws -> T {
        guard let key else { return try work() }
        let admitted = running.withLock { running in
            let held = running[key, default: 0]
            guard held < perCaller else { return false }
            running[key] = held + 1
            return true
        }
        guard admitted else {
            throw APIError(
                .resourceExhausted, status: 429,
                message: "this caller already runs \(perCaller) queries at once (query.maxConcurrentPerCaller); "
                    + "retry when one has finished",
                headers: [("Retry-After", "1")])
        }
        defer {
            running.withLock { running in
                let held = running[key, default: 1] - 1
                running[key] = held > 0 ? held : nil
            }
        }
        return try work()
    }

    /// Slots held now, for tests.
    func held(_ key: String) -> Int { running.withLock { $0[key, default: 0] } }
}
