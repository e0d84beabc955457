import Foundation
import KuraCore
import Testing

@testable import KuraHTTP

/// A value behind a lock that escaping closures can capture.
private final class Box<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
    var current: Value { withLock { $0 } }
}

/// The names of this process's threads as the kernel shows them (`top -H`, `ps -L`).
func kernelThreadNames() -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap { task in
        (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Service threads, serial queues, monotonic waits and the loop-ownership check (issue 13, item 5).
@Suite struct ServiceThreadTests {
    @Test("a service thread carries its name in the kernel, cut to 15 bytes, and stop() wakes and joins it")
    func namedStopAndJoin() throws {
        // Foundation's `Thread.name` silently drops a name longer than Linux's 15 bytes ("kura-store-writer").
        let thread = ServiceThread(name: "kura-test-service-thread")
        let exited = Box(false)
        let running = Wakeup()
        thread.start {
            running.raise()
            while !thread.isStopping { thread.sleep(nanoseconds: nil) }
            exited.withLock { $0 = true }
        }
        running.wait()
        #expect(kernelThreadNames().contains("kura-test-servi"))
        #expect(!thread.isCurrent)
        thread.stop()
        #expect(exited.current)
        #expect(!kernelThreadNames().contains("kura-test-servi"))
        thread.stop()  // idempotent
    }

    @Test("stopping a thread that never started returns at once")
    func stopUnstarted() {
        ServiceThread(name: "kura-never").stop()
    }

    @Test("sleep returns false after its timeout, measured on the monotonic clock, and true when woken")
    func sleepTimeoutAndWake() throws {
        let thread = ServiceThread(name: "kura-test-sleep")
        let outcomes = Box<[(woken: Bool, slept: UInt64)]>([])
        let ready = Wakeup()
        thread.start {
            let start = MonotonicClock.nanoseconds()
            let first = thread.sleep(nanoseconds: 20_000_000)
            outcomes.withLock { $0.append((first, MonotonicClock.nanoseconds() - start)) }
            ready.raise()
            let second = thread.sleep(nanoseconds: 60_000_000_000)
            outcomes.withLock { $0.append((second, 0)) }
        }
        ready.wait()
        thread.wake()
        thread.stop()
        let result = outcomes.current
        #expect(result.count == 2)
        #expect(result.first?.woken == false)
        #expect((result.first?.slept ?? 0) >= 20_000_000)
        #expect(result.last?.woken == true)
    }

    @Test("a serial queue runs jobs in order on its own named thread; sync waits; after stop jobs run on the caller")
    func serialQueue() throws {
        let queue = SerialQueue(name: "kura-test-queue")
        #expect(!kernelThreadNames().contains("kura-test-queue"))  // no thread before the first job
        let order = Box<[Int]>([])
        let onQueue = Box(0)
        for i in 0..<100 {
            queue.async {
                if queue.isCurrent { onQueue.withLock { $0 += 1 } }
                order.withLock { $0.append(i) }
            }
        }
        let names = queue.sync { kernelThreadNames() }
        #expect(names.contains("kura-test-queue"))
        #expect(order.current == Array(0..<100))
        #expect(onQueue.current == 100)
        #expect(queue.sync { 42 } == 42)
        queue.stop()
        #expect(!kernelThreadNames().contains("kura-test-queue"))
        let ranHere = Box(false)
        queue.async { ranHere.withLock { $0 = true } }
        #expect(ranHere.current)
    }

    @Test("a delayed job runs on the queue's thread once due, after jobs queued meanwhile; stop runs it early")
    func serialQueueDelayedJobs() throws {
        let queue = SerialQueue(name: "kura-test-later")
        let order = Box<[String]>([])
        let done = Wakeup()
        queue.async(after: 0.05) {
            order.withLock { $0.append(queue.isCurrent ? "later, on the queue" : "later, elsewhere") }
            done.raise()
        }
        queue.async { order.withLock { $0.append("now") } }
        #expect(done.wait(timeoutNanoseconds: 60_000_000_000))
        #expect(order.current == ["now", "later, on the queue"])

        // Not due for an hour: stop() runs it rather than losing it (its owner checks whether it stopped).
        let ranAtStop = Box(false)
        queue.async(after: 3600) { ranAtStop.withLock { $0 = true } }
        queue.sync {}
        #expect(!ranAtStop.current)
        queue.stop()
        #expect(ranAtStop.current)
    }

    @Test("a serial queue whose owner goes away inside one of its jobs stops without waiting for itself")
    func serialQueueStoppedFromItsOwnJob() throws {
        let queue = SerialQueue(name: "kura-test-self")
        let done = Wakeup()
        queue.async {
            queue.stop()  // what an owner's deinit does when its last reference is dropped on the queue
            done.raise()
        }
        #expect(done.wait(timeoutNanoseconds: 10_000_000_000))
    }

    @Test("event loop threads are named kura-loop-N")
    func loopThreadNames() throws {
        let loop = EventLoop(index: 7)
        loop.start()
        let names = Box<[String]>([])
        let done = Wakeup()
        loop.execute {
            names.withLock { $0 = kernelThreadNames() }
            loop.closeWakeup()
            done.raise()
        }
        done.wait()
        loop.join()
        #expect(names.current.contains("kura-loop-7"))
    }

    @Test("LoopBound's debug check passes on its loop and fails on any other thread")
    func loopBoundCheck() throws {
        let loop = EventLoop(index: 0)
        loop.start()
        let bound = Box(LoopBound([1, 2], eventLoop: loop))
        // The predicate the debug `assert` checks, asked off the loop without trapping.
        #expect(bound.withLock { $0.isAccessibleHere } == false)
        let seen = Box<(accessible: Bool, value: [Int])>((false, []))
        let done = Wakeup()
        loop.execute {
            bound.withLock { bound in
                bound.value.append(3)  // on the loop: allowed, and checked in this debug build
                seen.withLock { $0 = (bound.isAccessibleHere, bound.value) }
            }
            loop.closeWakeup()
            done.raise()
        }
        done.wait()
        loop.join()
        #expect(seen.current.accessible)
        #expect(seen.current.value == [1, 2, 3])
    }
}
