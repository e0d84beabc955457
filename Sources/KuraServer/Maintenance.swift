import Foundation
import KuraCore
import KuraModel

/// Housekeeping that runs off the request path on its own thread, every `interval`: today, purging expired
/// action codes and revoked sessions from the account store. Stops with the server.
final class Maintenance: @unchecked Sendable {
    private let interval: TimeInterval
    private let tasks: [(name: String, run: @Sendable () throws -> Void)]
    private let logger: Logger
    private let condition = NSCondition()
    private var stopped = false
    private var thread: Thread?

    init(interval: TimeInterval, logger: Logger, tasks: [(name: String, run: @Sendable () throws -> Void)]) {
        self.interval = interval
        self.logger = logger
        self.tasks = tasks
    }

    func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "kura-maintenance"
        self.thread = thread
        thread.start()
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            let deadline = Date(timeIntervalSinceNow: interval)
            while !stopped && condition.wait(until: deadline) {}
            let done = stopped
            condition.unlock()
            if done { return }
            for task in tasks {
                do { try task.run() } catch { logger.warn("maintenance task \(task.name) failed: \(error)") }
            }
        }
    }
}
