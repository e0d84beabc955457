#if canImport(Glibc)
    import Glibc
#endif

/// Lets a thread wait in one `poll` for a database socket and for a queue to reach a length: the queue's owner
/// arms it with a length (`arm`), its producers report each new length (`queued`), and the first one at or past
/// the armed length makes its pipe readable, once. Used by `PostgresWriter` while a create batch's answer is
/// outstanding; a wakeup per submitted commit would cost more than it saves.
///
/// `arm`, `disarm` and `queued` run under the queue owner's lock; `wait` runs outside it.
final class QueueWakeup: @unchecked Sendable {
    // `@unchecked`: `threshold` is read and written under the queue owner's lock (see above); the pipe's ends never
    // change.
    private let readEnd: Int32
    private let writeEnd: Int32
    private var threshold = Int.max

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// Wakes `wait` once the queue holds `length` entries.
    func arm(length: Int) { threshold = length }

    /// Stops waking.
    func disarm() { threshold = .max }

    /// The queue now holds `length` entries.
    func queued(_ length: Int) {
        guard length >= threshold else { return }
        threshold = .max
        var one: UInt8 = 1
        _ = write(writeEnd, &one, 1)
    }

    /// Waits until `socket` is readable or `queued` reached the armed length, at most `timeoutMilliseconds`.
    func wait(socket: Int32, timeoutMilliseconds: Int32) {
        var descriptors = [
            pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
            pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0),
        ]
        _ = poll(&descriptors, 2, timeoutMilliseconds)
        if descriptors[1].revents != 0 {
            var drained = [UInt8](repeating: 0, count: 16)
            _ = read(readEnd, &drained, drained.count)
        }
    }
}
