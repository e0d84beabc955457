/// A value that belongs to one event loop: it may be read and changed only on that loop's thread. Every build
/// checks every access (`precondition`, with the file and line of the access): an atomic load and a comparison
/// with `pthread_self()`, cheap next to a race that would corrupt the value silently. Modelled on swift-nio's
/// `NIOLoopBound`.
///
/// `@unchecked Sendable`: the value may travel to other threads inside the objects that hold it, but is only touched
/// on its loop, which is what the check enforces.
public struct LoopBound<Value>: @unchecked Sendable {
    /// The loop the value belongs to.
    public let eventLoop: EventLoop
    private var storage: Value

    /// Binds `value` to `eventLoop`. May be created on any thread (handles are set up before a loop runs).
    public init(_ value: Value, eventLoop: EventLoop) {
        self.eventLoop = eventLoop
        self.storage = value
    }

    /// The value. Loop thread only (checked in every build).
    public var value: Value {
        get {
            eventLoop.preconditionInEventLoop()
            return storage
        }
        _modify {
            eventLoop.preconditionInEventLoop()
            yield &storage
        }
    }

    /// Whether an access from the calling thread would pass the check.
    public var isAccessibleHere: Bool { eventLoop.inEventLoop }
}

extension EventLoop {
    /// Stops the process, in every build, when the caller is not on this loop's thread. Put it first in code that
    /// touches loop-only state (connections, their handles, per-loop caches): a race there would corrupt state
    /// silently, so stopping at once is the cheaper failure (an atomic load and a comparison per call).
    @inlinable
    public func preconditionInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        precondition(inEventLoop, "loop-only code ran off event loop \(index)'s thread", file: file, line: line)
    }
}
