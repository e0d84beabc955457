import KuraCore

/// One unit of work queued for an engine's writer (`WriterQueue`): what it asks to run in the writer's
/// transaction, how many writes it holds, and its outcome until it is handed to the submitter.
///
/// `Input` is what the job runs on (the engine's write transaction, or an engine's choice of inputs); `Attributes`
/// is what only that engine keeps per job (SQLite: whether it is a background job; PostgreSQL: its lock keys, its
/// bulk create, its commit attempts).
///
/// `@unchecked`: a job is touched by one thread at a time, handed on through locks: the submitter until
/// it is queued (the queue's mutex), then the writer thread while its batch runs, then the acknowledgement queue
/// once the batch is acknowledged (the serial queue's lock). The outcome and `attributes` change only on the writer
/// thread.
package final class WriterJob<Input, Attributes>: @unchecked Sendable {
    /// Writes it holds, counted against the batch limit.
    package let size: Int
    /// Whether it may run without a savepoint of its own: it fails, if at all, before it changes a row or in one
    /// statement the database undoes itself (see the engines' writers).
    package let selfContained: Bool
    /// When it was submitted (`MonotonicClock` nanoseconds), for the slow-write log.
    package let queued = MonotonicClock.nanoseconds()
    /// What the engine keeps per job. Writer thread only once queued.
    package var attributes: Attributes
    /// Runs the work and keeps its value as the outcome.
    private let perform: (Input) throws -> Void
    /// The typed outcome and the submitter's completion.
    private let outcome: any JobOutcome

    /// A job running `work`; `completion` receives the outcome once the writer acknowledges the job. Until the
    /// job has run (or failed) its outcome is `unsettled`.
    package init<T: Sendable>(
        size: Int, selfContained: Bool, attributes: Attributes, unsettled: any Error,
        work: @escaping (Input) throws -> T, completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        self.size = size
        self.selfContained = selfContained
        self.attributes = attributes
        let outcome = TypedOutcome(.failure(unsettled), completion: completion)
        self.outcome = outcome
        perform = { input in outcome.result = .success(try work(input)) }
    }

    /// Runs the work on `input` and keeps its value as the outcome; throws what the work throws (the outcome is
    /// then left as it was: the writer decides whether the error becomes it, `fail`). Writer thread only.
    package func run(_ input: Input) throws { try perform(input) }

    /// Makes `error` the outcome. Writer thread only.
    package func fail(_ error: any Error) { outcome.fail(error) }

    /// Whether the outcome is a value.
    package var succeeded: Bool { outcome.succeeded }

    /// Hands the outcome to the submitter (`WriterQueue.acknowledge`).
    func finish() { outcome.finish() }
}

/// A job's outcome without its value's type, so that jobs of every result type queue together.
private protocol JobOutcome: AnyObject {
    func fail(_ error: any Error)
    var succeeded: Bool { get }
    func finish()
}

/// The outcome of a job whose work returns `T`, and where it goes.
private final class TypedOutcome<T: Sendable>: JobOutcome {
    var result: Result<T, any Error>
    let completion: @Sendable (Result<T, any Error>) -> Void

    init(_ result: Result<T, any Error>, completion: @escaping @Sendable (Result<T, any Error>) -> Void) {
        self.result = result
        self.completion = completion
    }

    func fail(_ error: any Error) { result = .failure(error) }
    var succeeded: Bool {
        if case .success = result { return true }
        return false
    }
    func finish() { completion(result) }
}
