import Foundation
import KuraCore
import KuraModel

/// Housekeeping that runs off the request path on its own thread, every `interval`: today, purging expired
/// action codes and revoked sessions from the account store. Stops with the server.
final class Maintenance: Sendable {
    private let interval: TimeInterval
    private let tasks: [(name: String, run: @Sendable () throws -> Void)]
    private let logger: Logger
    private let thread: ServiceThread

    /// `name`: the thread's name (15 bytes at most).
    init(
        name: String = "kura-maintain", interval: TimeInterval, logger: Logger,
        tasks: [(name: String, run: @Sendable () throws -> Void)]
    ) {
        thread = ServiceThread(name: name)
        self.interval = interval
        self.logger = logger
        self.tasks = tasks
    }

    func start() {
        thread.start { [self] in loop() }
    }

    /// Stops the thread and waits for a task under way to finish.
    func stop() {
        thread.stop()
    }

    private func loop() {
        let nanoseconds = UInt64(max(0, interval) * 1_000_000_000)
        while true {
            // Every `interval` on the monotonic clock, whatever the wall clock does.
            let deadline = MonotonicClock.nanoseconds() &+ nanoseconds
            while !thread.isStopping, case let now = MonotonicClock.nanoseconds(), now < deadline {
                thread.sleep(nanoseconds: deadline - now)
            }
            if thread.isStopping { return }
            for task in tasks {
                do { try task.run() } catch { logger.warn("maintenance task \(task.name) failed: \(error)") }
            }
        }
    }
}
