import Foundation
import KuraCore
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Rate limits on the public account endpoints (default limits: per IP a burst of 20, per account a burst of 5).
@Suite struct AuthRateLimitTests {
    /// Sends `request` up to `tries` times; returns how many were let through and the first 429.
    private func untilLimited(_ tries: Int, _ request: (Int) throws -> HTTPResponse) throws -> (Int, HTTPResponse?) {
        for attempt in 0..<tries {
            let response = try request(attempt)
            if response.status == 429 { return (attempt, response) }
        }
        return (tries, nil)
    }

    private func expectTooMany(_ response: HTTPResponse?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let response else {
            Issue.record("never rate-limited", sourceLocation: sourceLocation)
            return
        }
        expectError(response, 429, .tooManyAttemptsTryLater, sourceLocation: sourceLocation)
        let retryAfter = response.header("Retry-After").flatMap { Int($0) }
        #expect(retryAfter != nil && retryAfter! >= 1, "Retry-After: \(response.head)", sourceLocation: sourceLocation)
    }

    @Test("sign-ins from one address: 429 with Retry-After after the per-IP burst")
    func signInPerIP() throws {
        try withAuthKura(configure: { $0.auth.rateLimits.enabled = true }) { kura in
            let client = try kura.client()
            let (allowed, limited) = try untilLimited(40) { i in
                try client.request(
                    "POST", "/api/auth/signin", json: ["email": "user\(i)@example.com", "password": "wrong-pw"],
                    auth: .none)
            }
            // 20, or one more if a token refilled (one every 3 s) on a slow machine.
            #expect((20...21).contains(allowed), "\(allowed)")
            expectTooMany(limited)
            // The limit is per endpoint class: a sign-up from the same address still works.
            #expect(
                try kura.request(
                    "POST", "/api/auth/signup", json: ["email": "new@example.com", "password": "secret-pw"], auth: .none
                ).status == 201)
        }
    }

    @Test(
        "sign-ins against one account: 429 after the per-account burst, even with the right password from the failing address"
    )
    func signInPerAccount() throws {
        try withAuthKura(configure: { $0.auth.rateLimits.enabled = true }) { kura in
            try kura.signUp("ann@example.com")
            let (allowed, limited) = try untilLimited(20) { _ in try kura.signInResponse("ann@example.com", "wrong-pw")
            }
            #expect(allowed == 5)  // refills are one a minute
            expectTooMany(limited)
            expectTooMany(try kura.signInResponse("ANN@example.com", "secret-pw"))
            // Another account is not affected.
            try kura.signUp("bob@example.com")
            #expect(try kura.signInResponse("bob@example.com", "secret-pw").status == 200)
        }
    }

    @Test("password-reset requests: 429 with Retry-After, per account and per address")
    func passwordReset() throws {
        try withAuthKura(configure: { $0.auth.rateLimits.enabled = true }) { kura in
            try kura.signUp("ann@example.com")
            let (perAccount, limitedAccount) = try untilLimited(20) { _ in
                try kura.request("POST", "/api/auth/password-reset", json: ["email": "ann@example.com"], auth: .none)
            }
            #expect(perAccount == 5)
            expectTooMany(limitedAccount)
            // Only the allowed requests made mails (1 sign-up verification + 5 resets).
            #expect(try kura.outbox().count == 6)

            // Different addresses from one client: the per-IP bucket runs out.
            let (perIP, limitedIP) = try untilLimited(40) { i in
                try kura.request("POST", "/api/auth/password-reset", json: ["email": "x\(i)@example.com"], auth: .none)
            }
            // 20 minus the 6 requests above (the refused one was charged to the address before its account
            // was refused), maybe plus a refill.
            #expect((14...15).contains(perIP), "\(perIP)")
            expectTooMany(limitedIP)
        }
    }

    @Test("with rate limits off nothing is refused")
    func disabled() throws {
        try withAuthKura { kura in
            for i in 0..<30 {
                let response = try kura.signInResponse("user\(i % 2)@example.com", "wrong-pw")
                #expect(response.status == 400, "\(response)")
            }
        }
    }
}
