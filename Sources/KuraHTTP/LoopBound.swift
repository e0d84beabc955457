/// A value that belongs to one event loop: it may be read and changed only on that loop's thread. Debug builds
/// check every access (`assert`, with the file and line of the access); release builds check nothing and store
/// nothing but the value and its loop, so the wrapper costs nothing there. Modelled on swift-nio's `NIOLoopBound`.
///
/// `@unchecked Sendable`: the value may travel to other threads inside the objects that hold it, but is only touched
/// on its loop, which is what the debug check enforces.
public struct LoopBound<Value>: @unchecked Sendable {
    /// The loop the value belongs to.
    public let eventLoop: EventLoop
    private var storage: Value

    /// Binds `value` to `eventLoop`. May be created on any thread (handles are set up before a loop runs).
    public init(_ value: Value, eventLoop: EventLoop) {
        self.eventLoop = eventLoop
        self.storage = value
    }

    /// The value. Loop thread only (checked in debug builds).
    public var value: Value {
        get {
            eventLoop.assertInEventLoop()
            return storage
        }
        _modify {
            eventLoop.assertInEventLoop()
            yield &storage
        }
    }

    /// Whether an access from the calling thread would pass the debug check: the predicate the check asserts.
    public var isAccessibleHere: Bool { eventLoop.inEventLoop }
}

extension EventLoop {
    /// Stops a debug build when the caller is not on this loop's thread; nothing in release builds. Put it first in
    /// code that touches loop-only state (connections, their handles, per-loop caches).
    @inlinable
    public func assertInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        assert(inEventLoop, "loop-only code ran off event loop \(index)'s thread", file: file, line: line)
    }
}
