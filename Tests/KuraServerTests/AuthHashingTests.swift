import Foundation
import KuraAuth
import KuraCore
import KuraServer
import Testing

/// Password hashing (argon2id, ~100 ms and 64 MiB each with the default settings) must run on the worker pool:
/// if it ran on the event loop, every other request on that loop would wait behind it.
@Suite struct AuthHashingTests {
    @Test("concurrent sign-ins with the default argon2id cost leave /api/health fast on a single event loop")
    func hashingStaysOffTheLoop() throws {
        try withTestKura(configure: {
            $0.auth = AuthConfiguration()  // the expensive default, on purpose
            $0.auth.rateLimits.enabled = false
            $0.http.eventLoops = 1
        }) { kura in
            #expect(kura.kura.configuration.auth.passwordMemLimit >= 64 << 20)
            try kura.signUp("ann@example.com")
            let port = kura.port
            let stop = Shared(false)
            let signIns = Shared(0)
            let failures = Shared<[String]>([])
            let latencies = Shared<[Double]>([])
            let clock = ContinuousClock()
            let end = clock.now + .seconds(2)

            onThreads(9) { index in
                do {
                    let client = try HTTPConnection(port: port, timeout: 30)
                    if index == 0 {
                        // The prober: health checks one after another on its own connection.
                        while clock.now < end {
                            let start = clock.now
                            let response = try client.send("GET", "/api/health")
                            let elapsed = clock.now - start
                            guard response.status == 200 else { throw UnexpectedResponse(response) }
                            let ms =
                                Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds)
                                * 1000
                            latencies.withLock { $0.append(ms) }
                            usleep(2000)
                        }
                        stop.withLock { $0 = true }
                    } else {
                        let body = JSON.encode(["email": "ann@example.com", "password": "secret-pw"])
                        while !stop.current {
                            let response = try client.send(
                                "POST", "/api/auth/signin", headers: [("Content-Type", "application/json")], body: body)
                            guard response.status == 200 else { throw UnexpectedResponse(response) }
                            signIns.withLock { $0 += 1 }
                        }
                    }
                } catch {
                    stop.withLock { $0 = true }
                    failures.withLock { $0.append("thread \(index): \(error)") }
                }
            }

            #expect(failures.current.isEmpty, "\(failures.current)")
            let sorted = latencies.current.sorted()
            try #require(sorted.count >= 50, "only \(sorted.count) health checks")
            let p99 = sorted[Int(Double(sorted.count - 1) * 0.99)]
            let p50 = sorted[sorted.count / 2]
            let completed = signIns.current
            // The load was real: sign-ins kept the worker pool busy the whole time.
            #expect(completed >= 8, "only \(completed) sign-ins completed")
            // Hashing on the loop would queue each health check behind the 8 sign-ins' hashes (~35 ms each at this
            // cost): hundreds of ms. 150 ms leaves room for a full test run sharing the machine's two cores.
            #expect(
                p99 < 150,
                "health p50 \(p50) ms, p99 \(p99) ms, max \(sorted.last!) ms over \(sorted.count) checks with \(completed) sign-ins"
            )
        }
    }
}
