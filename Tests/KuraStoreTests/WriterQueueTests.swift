import Foundation
import KuraCore
import Synchronization
import Testing

@testable import KuraStore

/// The engines' writer core on its own (`WriterQueue`): batching, ordering, failures, stop, and the writer-thread
/// check, with a stand-in transaction that hands out change numbers.
@Suite struct WriterQueueTests {
    /// An engine's transaction as far as ordering goes: made on the writer thread, it numbers the jobs that run in
    /// it, and checks every use like the engines' transactions do.
    final class Sequencer {
        let writerThread: WriterThread
        private var last: Int64 = 0
        init(_ writerThread: WriterThread) {
            writerThread.preconditionOnWriterThread("Sequencer")
            self.writerThread = writerThread
        }
        func next() -> Int64 {
            writerThread.preconditionOnWriterThread("Sequencer")
            last += 1
            return last
        }
    }

    /// A writer whose loop is the engines' group commit: take what is queued (up to `maxWrites`), run each job in
    /// order (a job that throws fails alone), acknowledge the batch. Records each batch's size.
    final class Harness: Sendable {
        let queue = WriterQueue<Sequencer, Void>(threadName: "kura-test-wq", acknowledgementsName: "kura-test-wqa")
        let sizes = BatchSizes()

        final class BatchSizes: Sendable { let value = Mutex<[Int]>([]) }

        init(maxWrites: Int) {
            // Not `self`: the harness stops the writer when it goes away.
            queue.start { [queue, sizes] in
                let sequencer = Sequencer(queue.writerThread)
                while let batch = queue.nextBatch(maxWrites: maxWrites) {
                    sizes.value.withLock { $0.append(batch.count) }
                    for job in batch {
                        do { try job.run(sequencer) } catch { job.fail(error) }
                    }
                    queue.acknowledge(batch)
                }
            }
        }

        deinit { queue.stop() }

        /// Holds the writer in a job until the returned semaphore is signalled.
        func holdWriter() -> DispatchSemaphore {
            let started = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            queue.submit(
                size: 1, selfContained: false, attributes: (),
                { _ in
                    started.signal()
                    release.wait()
                }
            ) { _ in }
            started.wait()
            return release
        }
    }

    private struct Failure: Error {}

    @Test("submits from many threads all complete, in the order of their change numbers, in batches of many")
    func manyThreadsInOrderInBatches() throws {
        let h = Harness(maxWrites: 100)
        let threads = 8
        let perThread = 250
        // The writer is held while every job queues, so the batches that follow are as large as the limit allows.
        let release = h.holdWriter()
        /// Completion order: (thread, submission index on that thread, change number).
        let acknowledged = Mutex<[(thread: Int, index: Int, seq: Int64)]>([])
        let completed = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread {
                completed.enter()
                h.queue.submit(size: 1, selfContained: true, attributes: (), { $0.next() }) { result in
                    if case .success(let seq) = result {
                        acknowledged.withLock { $0.append((thread, index, seq)) }
                    }
                    completed.leave()
                }
            }
        }
        release.signal()
        completed.wait()
        let acks = acknowledged.withLock { $0 }
        #expect(acks.count == threads * perThread)
        // Completions come in commit order, which is change-number order, with no number skipped.
        #expect(acks.map(\.seq) == Array(1...Int64(threads * perThread)))
        // Each thread's jobs ran in the order it submitted them.
        for thread in 0..<threads {
            let indices = acks.filter { $0.thread == thread }.map(\.index)
            #expect(indices == Array(0..<perThread))
        }
        let sizes = h.sizes.value.withLock { $0 }
        #expect(sizes.first == 1)  // the held job
        #expect(sizes.dropFirst().allSatisfy { $0 == 100 })
        #expect(sizes.dropFirst().reduce(0, +) == threads * perThread)
        // A blocking submit runs after all of them.
        #expect(try h.queue.submit(size: 1, selfContained: true, attributes: ()) { $0.next() } == 2001)
    }

    @Test("blocking submits from many threads at once all return, each thread's in its own order")
    func blockingSubmitsUnderContention() throws {
        let h = Harness(maxWrites: 2000)
        let numbers = Mutex<[[Int64]]>(Array(repeating: [], count: 8))
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for _ in 0..<200 {
                let seq = try? h.queue.submit(size: 1, selfContained: true, attributes: ()) { $0.next() }
                numbers.withLock { $0[thread].append(seq ?? -1) }
            }
        }
        let all = numbers.withLock { $0 }
        for perThread in all { #expect(perThread == perThread.sorted() && !perThread.contains(-1)) }
        #expect(Set(all.joined()).count == 1600)
        #expect(h.sizes.value.withLock { $0 }.reduce(0, +) == 1600)
    }

    @Test("a batch is taken up to the write limit, a larger job alone, and a failing job fails alone")
    func limitsAndFailures() throws {
        let h = Harness(maxWrites: 10)
        let release = h.holdWriter()
        let results = Mutex<[Int: Bool]>([:])
        let completed = DispatchGroup()
        // Sizes 4, 4, 4 | 30 | 1, 1 (the second throws).
        for (index, size) in [4, 4, 4, 30, 1, 1].enumerated() {
            completed.enter()
            h.queue.submit(
                size: size, selfContained: true, attributes: (),
                { sequencer -> Int64 in
                    if index == 5 { throw Failure() }
                    return sequencer.next()
                }
            ) { result in
                results.withLock { $0[index] = (try? result.get()) != nil }
                completed.leave()
            }
        }
        release.signal()
        completed.wait()
        #expect(h.sizes.value.withLock { $0 } == [1, 2, 1, 1, 2])
        #expect(results.withLock { $0 } == [0: true, 1: true, 2: true, 3: true, 4: true, 5: false])
    }

    @Test("after stop, queued work has finished and a submit fails with UNAVAILABLE")
    func stopFinishesQueuedWork() throws {
        let h = Harness(maxWrites: 100)
        let release = h.holdWriter()
        let done = Mutex(0)
        for _ in 0..<50 {
            h.queue.submit(size: 1, selfContained: true, attributes: (), { $0.next() }) { _ in
                done.withLock { $0 += 1 }
            }
        }
        release.signal()
        h.queue.stop()
        #expect(done.withLock { $0 } == 50)
        #expect(throws: APIError.unavailable("the store is closed")) {
            try h.queue.submit(size: 1, selfContained: true, attributes: ()) { $0.next() }
        }
        h.queue.stop()  // a second stop returns at once
    }

    @Test("the writer thread check passes on the writer's thread only")
    func writerThreadCheck() throws {
        let h = Harness(maxWrites: 100)
        #expect(!h.queue.writerThread.isCurrent)
        #expect(try h.queue.submit(size: 1, selfContained: true, attributes: ()) { $0.writerThread.isCurrent })
        #expect(h.queue.writerThread.name == "kura-test-wq")
    }

    @Test("a transaction made off its writer thread stops the process with a clear message")
    func transactionMadeOffTheWriterThreadTraps() async {
        await #expect(processExitsWith: .failure) {
            let h = Harness(maxWrites: 1)
            _ = Sequencer(h.queue.writerThread)
        }
    }

    @Test("a transaction used off its writer thread (handed out by a job) stops the process")
    func transactionUsedOffTheWriterThreadTraps() async {
        await #expect(processExitsWith: .failure) {
            let h = Harness(maxWrites: 1)
            /// The job's transaction, smuggled out of the job (what the check is for).
            final class Leak: @unchecked Sendable { var sequencer: Sequencer? }
            let leak = Leak()
            _ = try? h.queue.submit(size: 1, selfContained: true, attributes: ()) { leak.sequencer = $0 }
            _ = leak.sequencer?.next()
        }
    }
}
