import Foundation
import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import KuraTestSupport
import Testing

/// Conformance: the change-log contract (`DocumentStore`'s documentation) under concurrent committers. A follower
/// that asks for the entries after the last sequence it saw, as the realtime feed does, must never find a gap
/// (an entry that becomes visible behind it later is an entry it never delivers), and the final log holds every
/// committed write exactly once, each commit's writes together and in order, and nothing of a failed commit.
@Suite struct ChangeLogOrderTests {
    @Test(
        "entries become visible in sequence order with no gaps, while many threads commit",
        arguments: EngineUnderTest.all)
    func concurrentCommittersAndAFollower(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let run = try ChangeLogRace.run(h.store, committers: 8, commitsEach: 30)
        #expect(run.problems.isEmpty, "\(run.problems.prefix(10))")
        #expect(run.committed > 100 && run.failed > 0, "the race must commit much and fail some")
        #expect(run.followerReads > 1, "the follower read the log while it was being written")
    }

    @Test("changedPaths names the sequence and path of every entry changes returns", arguments: EngineUnderTest.all)
    func changedPathsMatchTheEntries(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        let start = try h.store.latestSequence()
        try h.store.create(doc("paths/a"), ["n": 1])
        try h.store.set(doc("paths/b"), ["n": 2])
        try h.store.set(doc("paths/a"), ["n": 3])
        try h.store.delete(doc("paths/b"))
        for limit in [1, 3, 10] {
            let entries = try h.store.changes(after: start, limit: limit)
            let paths = try h.store.changedPaths(after: start, limit: limit)
            #expect(paths == entries.map { ChangedPath(sequence: $0.sequence, path: $0.path) })
            #expect(paths.count == min(limit, 4))
        }
        #expect(
            try h.store.changedPaths(after: start + 1, limit: 10).map(\.path) == [
                try doc("paths/b"), try doc("paths/a"), try doc("paths/b"),
            ])
    }

    @Test("the check catches entries that appear behind a follower (a store that breaks the contract)")
    func theCheckCatchesLateEntries() throws {
        let h = try EngineUnderTest.sqlite.make()
        let run = try ChangeLogRace.run(LateEntries(base: h.store), committers: 4, commitsEach: 15)
        #expect(run.problems.contains { $0.hasPrefix("gap") }, "\(run.problems.prefix(3))")
        #expect(run.problems.contains { $0.hasPrefix("never seen") }, "\(run.problems.prefix(3))")
    }
}

/// Committers and one follower racing on a store; collects every breach of the change-log contract it sees.
enum ChangeLogRace {
    struct Outcome {
        /// Breaches found, in words (empty: the store kept the contract).
        var problems: [String] = []
        /// Commits that succeeded and failed.
        var committed = 0
        var failed = 0
        /// Reads of the log by the follower while the committers ran.
        var followerReads = 0
    }

    /// One successful commit: the writes' paths and results, in order.
    private struct Commit {
        var paths: [String]
        var results: [WriteResult]
    }

    static func run(_ store: any DocumentStore, committers: Int, commitsEach: Int) throws -> Outcome {
        let start = try store.latestSequence()
        let commits = Shared<[Commit]>([])
        let failures = Shared<[String]>([])
        let running = Shared(committers)
        let group = DispatchGroup()
        for committer in 0..<committers {
            group.enter()
            let thread = Thread {
                defer {
                    running.withLock { $0 -= 1 }
                    group.leave()
                }
                commit(store, committer: committer, count: commitsEach, into: commits, failures: failures)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        var outcome = Outcome()
        // The follower: reads after the last sequence it saw, like `ChangeFeed.follow`.
        var last = start
        var seen: [Int64] = []
        while true {
            let finished = running.current == 0
            let latest = try store.latestSequence()
            var page = try store.changes(after: last, limit: 7)
            while !page.isEmpty {
                outcome.followerReads += finished ? 0 : 1
                for change in page {
                    if change.sequence != last + 1 {
                        outcome.problems.append("gap: after \(last) the follower read \(change.sequence)")
                    }
                    if change.sequence <= last {
                        outcome.problems.append("went back: after \(last) the follower read \(change.sequence)")
                    }
                    last = max(last, change.sequence)
                    seen.append(change.sequence)
                }
                page = try store.changes(after: last, limit: 7)
            }
            usleep(100)
            if last < latest {
                outcome.problems.append("latestSequence() said \(latest) but the log ends at \(last)")
            }
            if finished { break }
        }
        group.wait()
        outcome.problems += failures.current
        let done = commits.current
        outcome.committed = done.count
        outcome.failed = committers * commitsEach - done.count
        outcome.problems += check(try readAll(store, after: start), seen: seen, commits: done)
        return outcome
    }

    /// `count` commits of 1–3 writes each; every fifth one fails on purpose (a create of an existing document,
    /// alone or as the last of several writes, so that the earlier ones must be undone). Half use the completion
    /// API.
    private static func commit(
        _ store: any DocumentStore, committer: Int, count: Int, into commits: Shared<[Commit]>,
        failures: Shared<[String]>
    ) {
        var generator = SplitMix(state: UInt64(committer) &* 7919 &+ 1)
        for index in 0..<count {
            let size = 1 + generator.below(3)
            var writes: [Write] = []
            do {
                for k in 0..<size {
                    let path = try DocumentPath("race/c\(committer)-\(index)-\(k)")
                    writes.append(Write(path: path, operation: .set(["n": .int(Int64(index))], merge: false)))
                }
                let failing = index % 5 == 4
                if failing {
                    // `race/c<committer>-0-0` exists since this committer's first commit. Every other failing
                    // commit is that create alone (a single-write commit fails on its own, too).
                    let existing = try DocumentPath("race/c\(committer)-0-0")
                    if index % 10 == 9 { writes = [] }
                    writes.append(Write(path: existing, operation: .create(["n": 0])))
                }
                let results: [WriteResult]
                if index % 2 == 0 {
                    results = try store.commit(writes)
                } else {
                    let outcome = Shared<Result<[WriteResult], any Error>?>(nil)
                    let done = DispatchSemaphore(value: 0)
                    store.commit(writes) { result in
                        outcome.withLock { $0 = result }
                        done.signal()
                    }
                    done.wait()
                    results = try outcome.current!.get()
                }
                if failing {
                    failures.withLock { $0.append("a commit that must fail succeeded: \(writes.map(\.path))") }
                    continue
                }
                commits.withLock {
                    $0.append(Commit(paths: writes.map(\.path.description), results: results))
                }
            } catch let error as APIError where error.code == .alreadyExists && index % 5 == 4 {
                continue
            } catch {
                failures.withLock { $0.append("commit \(committer)/\(index) failed: \(error)") }
            }
        }
    }

    private static func readAll(_ store: any DocumentStore, after start: Int64) throws -> [Change] {
        var all: [Change] = []
        var last = start
        while true {
            let page = try store.changes(after: last, limit: 500)
            guard let end = page.last else { return all }
            all += page
            last = end.sequence
        }
    }

    /// The final log against what the follower saw and what was committed.
    private static func check(_ log: [Change], seen: [Int64], commits: [Commit]) -> [String] {
        var problems: [String] = []
        let sequences = log.map(\.sequence)
        for (previous, next) in zip(sequences, sequences.dropFirst()) where next != previous + 1 {
            problems.append("not consecutive: \(previous) then \(next) in the final log")
        }
        let seenSet = Set(seen)
        for sequence in sequences where !seenSet.contains(sequence) {
            problems.append("never seen: \(sequence) appeared behind the follower")
        }
        var positions: [String: [Int]] = [:]
        for (position, change) in log.enumerated() { positions[change.path.description, default: []].append(position) }
        var expected = 0
        for commit in commits {
            expected += commit.paths.count
            let found = commit.paths.map { positions[$0] ?? [] }
            guard found.allSatisfy({ $0.count == 1 }) else {
                problems.append("written \(found.map(\.count)) times instead of once: \(commit.paths)")
                continue
            }
            let places = found.map { $0[0] }
            if places != Array(places[0]..<(places[0] + places.count)) {
                problems.append("a commit's entries are not together and in order: \(commit.paths) at \(places)")
            }
            for (place, result) in zip(places, commit.results) {
                let change = log[place]
                if change.version != result.version || change.time != result.updateTime {
                    problems.append("entry \(change.sequence) does not match its write result \(result)")
                }
            }
        }
        if log.count != expected {
            problems.append("the log has \(log.count) entries for \(expected) committed writes")
        }
        return problems
    }
}

/// A store that breaks the contract the way a PostgreSQL sequence under concurrent transactions would: an entry
/// whose sequence is a multiple of 3 stays invisible to the first read that reaches past it, then appears.
private final class LateEntries: DocumentStoreDecorator, @unchecked Sendable {
    let base: any DocumentStore
    private let hidden = Shared<Set<Int64>>([])
    private let released = Shared<Set<Int64>>([])

    init(base: any DocumentStore) { self.base = base }

    func commit(_ writes: [Write]) throws -> [WriteResult] { try base.commit(writes) }

    func commit(_ writes: [Write], completion: @escaping @Sendable (Result<[WriteResult], any Error>) -> Void) {
        base.commit(writes, completion: completion)
    }

    func changes(after sequence: Int64, limit: Int) throws -> [Change] {
        try base.changes(after: sequence, limit: limit).filter { change in
            guard change.sequence % 3 == 0 else { return true }
            if released.withLock({ $0.contains(change.sequence) }) { return true }
            if hidden.withLock({ $0.insert(change.sequence).inserted }) { return false }
            released.withLock { _ = $0.insert(change.sequence) }
            return true
        }
    }
}
