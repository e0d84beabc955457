import Foundation
import KuraCore
import Synchronization
import Testing

@testable import KuraAuth

#if canImport(Glibc)
    import Glibc
#endif

/// Each argon2id hash holds `passwordMemLimit` bytes while it runs, so at most `passwordHashConcurrency` run at once
/// (by default one per core); the others wait for one to finish.
@Suite struct PasswordHashGateTests {
    /// Runs `body` on `count` threads of their own (not the cooperative pool, which has only as many as there are
    /// cores) and returns when all have finished.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let finished = Mutex(0)
        let done = Wakeup()
        for index in 0..<count {
            Thread {
                body(index)
                if finished.withLock({
                    $0 += 1; return $0
                }) == count {
                    done.raise()
                }
            }.start()
        }
        done.wait()
    }

    @Test("the gate lets `limit` bodies run at once and the others wait")
    func gateHoldsTheRest() {
        let gate = PasswordHashGate(limit: 2)
        let entered = Mutex(0)
        let released = Mutex(false)
        Thread {
            // Release the bodies once two are inside; the three others are then waiting at the gate (or about to).
            while entered.withLock({ $0 }) < 2 { usleep(1000) }
            usleep(20_000)
            released.withLock { $0 = true }
        }.start()
        Self.onThreads(5) { _ in
            gate.run {
                entered.withLock { $0 += 1 }
                while !released.withLock({ $0 }) { usleep(1000) }
            }
        }
        #expect(entered.withLock { $0 } == 5)
        #expect(gate.peak == 2)
    }

    @Test("concurrent sign-ins compute at most auth.passwordHashConcurrency hashes at once, and all succeed")
    func signInsShareTheGate() throws {
        let f = try Fixture { $0.passwordHashConcurrency = 2 }
        try f.signUp()
        let results = Mutex<[Bool]>([])
        Self.onThreads(8) { [auth = f.auth] index in
            let password = index % 2 == 0 ? "secret-pw" : "wrong-pw"
            let signedIn = (try? auth.signIn(email: "ann@example.com", password: password)) != nil
            results.withLock { $0.append(signedIn == (index % 2 == 0)) }
        }
        #expect(results.withLock { $0 }.count == 8)
        #expect(results.withLock { $0 }.allSatisfy { $0 })
        #expect(f.auth.hasher.gate.limit == 2)
        #expect((1...2).contains(f.auth.hasher.gate.peak))
    }

    @Test("by default the limit is the number of cores")
    func defaultIsTheCoreCount() throws {
        let f = try Fixture()
        #expect(f.auth.hasher.gate.limit == sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}
