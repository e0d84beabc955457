import Foundation
import KuraTestSupport
import Testing

/// Crash consistency on both engines (docs/reliability.md, "Crash consistency"): cycles of a mixed load, a crash at a
/// random moment, a restart, and a check that every acknowledged write is there at its acknowledged version, no
/// commit is partial, a listener resuming with its last event id gets exactly the changes it missed, sessions and
/// refresh tokens survive and index builds finish. `KURA_CRASH_CYCLES` (default 3) and `KURA_CRASH_SEED` (default
/// random, printed) set the run; Tests/Support/crash_loop.sh runs the long version (20 cycles, with 8,000 documents
/// under the indexes instead of 2,000).
@Suite struct CrashConsistencyTests {
    static var cycles: Int { Int(ProcessInfo.processInfo.environment["KURA_CRASH_CYCLES"] ?? "") ?? 3 }
    static var seed: UInt64 {
        UInt64(ProcessInfo.processInfo.environment["KURA_CRASH_SEED"] ?? "") ?? UInt64.random(in: 1..<1_000_000_000)
    }

    static func run(_ engine: CrashRun.Engine) throws {
        // The long run indexes more documents, so that builds are still under way at the crash on a quiet machine.
        let run = try CrashRun(engine: engine, cycles: cycles, seed: seed, bulkDocuments: cycles > 3 ? 8000 : 2000)
        try run.run()
        let failures = run.failures.prefix(30).joined(separator: "\n")
        #expect(
            run.failures.isEmpty, "seed \(run.seed) (KURA_CRASH_SEED=\(run.seed) reproduces the load):\n\(failures)")
        #expect(run.figures.acknowledgedWrites > 0 && run.figures.writesChecked > 0)
    }

    @Test("SQLite: kill -9 at random moments under a mixed load loses nothing acknowledged")
    func sqlite() throws { try Self.run(.sqlite) }

    @Test(
        "PostgreSQL: the node, the database or both killed under a mixed load lose nothing acknowledged",
        TestPostgres.canStartServers)
    func postgres() throws { try Self.run(.postgres) }
}
