import KuraCore
import KuraHTTP
import KuraStore

/// How every document write is answered: decode it, hand it to the store's group commit, and answer once it is
/// durable, without any thread waiting for the fsync in between. (A worker thread per waiting write capped group
/// commit at a handful of writes per fsync: measured 0.01× nginx for creates, bench/docs.sh.)
struct DurableCommit: Sendable {
    let store: any DocumentStore
    /// Bodies up to this size are decoded on the event loop (microseconds); larger ones on the worker pool.
    static let decodeOnLoopBytes = 64 << 10

    enum Answer {
        /// Build the response on the loop from the commit's results.
        case onLoop
        /// Build it on the worker pool (it reads the store, e.g. the document as written).
        case onWorkerPool
    }

    func respond(
        to request: Request, _ environment: RequestEnvironment, answer: Answer = .onLoop,
        prepare: @escaping @Sendable () throws -> [Write],
        respond: @escaping @Sendable ([WriteResult]) throws -> Response
    ) -> Response {
        let store = self.store
        let loop = environment.eventLoop
        let workers = environment.workers
        let decodeOnLoop = request.body.count <= Self.decodeOnLoopBytes
        return .later { promise in
            let commit: @Sendable () -> Void = {
                let writes: [Write]
                do { writes = try prepare() } catch { return promise.fail(error) }
                store.commit(writes) { result in
                    // On the writer thread: hand off at once, the next batch waits for us.
                    guard case .success(let results) = result else {
                        return promise.complete(result.map { _ in .noContent })
                    }
                    switch answer {
                    case .onLoop:
                        loop.execute { promise.complete(Result { try respond(results) }) }
                    case .onWorkerPool:
                        do {
                            try workers.submit(on: loop, { try respond(results) }) { promise.complete($0) }
                        } catch {
                            promise.fail(error)
                        }
                    }
                }
            }
            if decodeOnLoop {
                commit()
            } else {
                do { try workers.submit(on: loop, commit) { _ in } } catch { promise.fail(error) }
            }
        }
    }
}
