/// One `Value` per event loop, read and written only on that loop's thread, so it needs no lock and no other
/// thread ever touches its memory (no cache line bouncing between cores). For per-loop caches in front of shared,
/// locked ones.
public final class LoopLocal<Value>: @unchecked Sendable {
    // `@unchecked`: each slot is read and written on its own loop's thread only; `slots` never changes.
    /// A separate allocation per loop, padded so that two loops' values never share a cache line.
    private final class Slot {
        var value: Value
        private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
        init(_ value: Value) { self.value = value }
    }

    private let slots: [Slot]

    /// Values for loops `0..<loops` (`EventLoop.index`), each made by `make`.
    public init(loops: Int, _ make: () -> Value) {
        slots = (0..<max(0, loops)).map { _ in Slot(make()) }
    }

    /// Runs `body` with the value of the loop the caller is running on; `nil` (and `body` does not run) off the
    /// loops or on a loop beyond the count given at `init`.
    public func withValue<Result>(on loop: EventLoop, _ body: (inout Value) throws -> Result) rethrows -> Result? {
        guard loop.index < slots.count, loop.inEventLoop else { return nil }
        return try body(&slots[loop.index].value)
    }
}
