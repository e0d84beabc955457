// Shared by every harness (compiled into each): property failures and fuzzer-chosen split points.
#if canImport(Glibc)
    import Glibc
#endif

/// Stops the run with `message` when a property does not hold: libFuzzer saves the input as a crash.
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    fputs("PROPERTY FAILED: \(message())\n", stderr)
    abort()
}

/// Cuts `count` bytes into pieces at points chosen by `control` (bytes the fuzzer mutates like any other): each
/// control byte is the length of the next piece (0 means 1), and the last piece takes the rest.
func pieces(of count: Int, control: some Collection<UInt8>) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    var start = 0
    for byte in control where start < count {
        let end = min(count, start + max(1, Int(byte)))
        ranges.append(start..<end)
        start = end
    }
    if start < count || ranges.isEmpty { ranges.append(start..<count) }
    return ranges
}

/// The input as (control, payload): the first byte says how many control bytes follow (at most 32).
func splitInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> (control: [UInt8], payload: [UInt8]) {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return ([], []) }
    let controlCount = min(Int(first % 33), bytes.count - 1)
    return (Array(bytes[1..<(1 + controlCount)]), Array(bytes[(1 + controlCount)...]))
}
