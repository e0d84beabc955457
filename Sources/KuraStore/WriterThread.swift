import KuraCore

/// The thread of an engine's writer (`WriterQueue`), which owns the writer's transaction: the transaction is made
/// on it and used only on it. Every build checks both (`precondition`, with the file and line of the access): an
/// atomic load and a comparison with `pthread_self()`, cheap next to two threads writing through one connection,
/// which would corrupt a batch silently. The writer's counterpart of KuraHTTP's `EventLoop.preconditionInEventLoop`.
package struct WriterThread: Sendable {
    private let thread: ServiceThread

    init(_ thread: ServiceThread) { self.thread = thread }

    /// The thread's name.
    package var name: String { thread.name }

    /// Whether the caller runs on the writer thread.
    package var isCurrent: Bool { thread.isCurrent }

    /// Stops the process, in every build, unless the caller runs on the writer thread. Put it where a write
    /// transaction is made and where it reaches its connection; `what` names the transaction in the message.
    @inlinable
    package func preconditionOnWriterThread(
        _ what: @autoclosure () -> String = "the write transaction", file: StaticString = #fileID, line: UInt = #line
    ) {
        precondition(
            isCurrent, "\(what()) used off its writer thread (\(name)): only the writer's jobs may use it", file: file,
            line: line)
    }
}
