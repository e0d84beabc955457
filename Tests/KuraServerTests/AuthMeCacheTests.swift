import Foundation
import KuraAuth
import KuraCore
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// `GET /api/auth/me` answers from memory when the token and the account are cached: every change must show at
/// once, and every revocation must refuse at once.
@Suite struct AuthMeCacheTests {
    /// `user` of a 200 `GET /api/auth/me`.
    private func meUser(_ kura: TestKura, _ token: String) throws -> [String: Any] {
        let response = try kura.me(token)
        guard response.status == 200, let user = response.json["user"] as? [String: Any] else {
            throw UnexpectedResponse(response)
        }
        return user
    }

    /// Checks that `GET /me` with `token` is now answered from memory, i.e. that the token's claims and the account
    /// are both cached (so the test exercises the fast path, not only the worker-pool one).
    private func expectHot(_ kura: TestKura, _ token: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let auth = kura.kura.auth
        let claims = auth.cachedClaims(token: token)
        let account = claims.flatMap { (auth.store as? CachedAccountStore)?.cachedAccount(uid: $0.uid) }
        #expect(claims != nil && account != nil, "not on the fast path", sourceLocation: sourceLocation)
    }

    /// Refused as a revoked token should be: 401 `INVALID_ID_TOKEN` or 403 `USER_DISABLED`.
    private func expectRefused(
        _ response: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let ok =
            (response.status == 401 && response.errorCode == "INVALID_ID_TOKEN")
            || (response.status == 403 && response.errorCode == "USER_DISABLED")
        #expect(ok, "expected a refusal, got \(response)", sourceLocation: sourceLocation)
    }

    @Test("profile changes show in the next GET /me")
    func changesShowAtOnce() throws {
        try withAuthKura { kura in
            let ann = try kura.signUp("ann@example.com", displayName: "Ann")
            // Warm both caches (token and account).
            for _ in 0..<3 { #expect(try meUser(kura, ann.idToken)["displayName"] as? String == "Ann") }
            expectHot(kura, ann.idToken)

            for i in 0..<20 {
                let patch = try kura.request(
                    "PATCH", "/api/auth/me", json: ["displayName": "Ann \(i)"], token: ann.idToken)
                try #require(patch.status == 200, "\(patch)")
                #expect(try meUser(kura, ann.idToken)["displayName"] as? String == "Ann \(i)")
                expectHot(kura, ann.idToken)
                #expect(try meUser(kura, ann.idToken)["displayName"] as? String == "Ann \(i)")
            }

            // Verification through a code, and changes by the administrator.
            let code = try #require(queryItem(try kura.heldLink(to: "ann@example.com", mode: "verifyEmail"), "code"))
            #expect(try meUser(kura, ann.idToken)["emailVerified"] as? Bool == false)
            #expect(try kura.request("POST", "/api/auth/verify-email/confirm", json: ["code": code]).status == 200)
            #expect(try meUser(kura, ann.idToken)["emailVerified"] as? Bool == true)
            try kura.adminUpdate(ann.uid, ["displayName": "Set by admin", "customClaims": ["tier": 2]])
            let user = try meUser(kura, ann.idToken)
            #expect(user["displayName"] as? String == "Set by admin")
            #expect((user["customClaims"] as? [String: Any])?["tier"] as? Int == 2)
            try kura.adminUpdate(ann.uid, ["email": "ann@elsewhere.example"])
            #expect(try meUser(kura, ann.idToken)["email"] as? String == "ann@elsewhere.example")
        }
    }

    @Test("a disabled account's cached token is refused at once; re-enabling lets it back in")
    func disableIsImmediate() throws {
        try withAuthKura { kura in
            let ann = try kura.signUp("ann@example.com")
            for _ in 0..<3 { _ = try meUser(kura, ann.idToken) }
            expectHot(kura, ann.idToken)
            try kura.adminUpdate(ann.uid, ["disabled": true])
            expectRefused(try kura.me(ann.idToken))
            expectRefused(try kura.me(ann.idToken))
            try kura.adminUpdate(ann.uid, ["disabled": false])
            #expect(try meUser(kura, ann.idToken)["disabled"] as? Bool == false)
            // Disabled by a user holding the admin claim, on another connection.
            let boss = try kura.signUp("boss@example.com")
            try kura.adminUpdate(boss.uid, ["customClaims": ["admin": true]])
            let admin = try Session(try kura.refresh(boss.refreshToken))
            for _ in 0..<3 { _ = try meUser(kura, ann.idToken) }
            expectHot(kura, ann.idToken)
            let patch = try kura.request(
                "PATCH", "/api/admin/users/\(ann.uid)", json: ["disabled": true], token: admin.idToken)
            #expect(patch.status == 200, "\(patch)")
            expectRefused(try kura.me(ann.idToken))
        }
    }

    @Test("sign-out, sign-out everywhere, refresh reuse, password reset and deletion refuse cached tokens at once")
    func revocationIsImmediate() throws {
        try withAuthKura { kura in
            let ann = try kura.signUp("ann@example.com")
            let tokens = try (0..<4).map { _ in try kura.signIn("ann@example.com") }
            for session in tokens + [ann] { for _ in 0..<2 { _ = try meUser(kura, session.idToken) } }
            for session in tokens + [ann] { expectHot(kura, session.idToken) }

            // Sign-out of one session.
            #expect(try kura.request("POST", "/api/auth/signout", token: tokens[0].idToken).status == 200)
            expectRefused(try kura.me(tokens[0].idToken))
            _ = try meUser(kura, tokens[1].idToken)

            // Refresh-token reuse revokes that session's ID tokens too. (Two refreshes: the token spent last still
            // works within the reuse grace, for retries; the one spent before it is reuse at once.)
            let spentLast = try Session(try kura.refresh(tokens[1].refreshToken))
            let rotated = try Session(try kura.refresh(spentLast.refreshToken))
            _ = try meUser(kura, rotated.idToken)
            expectHot(kura, rotated.idToken)
            expectError(try kura.refresh(tokens[1].refreshToken), 400, .invalidRefreshToken)
            expectRefused(try kura.me(rotated.idToken))
            expectRefused(try kura.me(tokens[1].idToken))

            // Sign-out everywhere.
            _ = try meUser(kura, tokens[3].idToken)
            #expect(
                try kura.request("POST", "/api/auth/signout", json: ["all": true], token: tokens[2].idToken).status
                    == 200)
            for session in tokens + [ann] { expectRefused(try kura.me(session.idToken)) }

            // Password reset revokes the new sessions.
            let again = try kura.signIn("ann@example.com")
            _ = try meUser(kura, again.idToken)
            #expect(
                try kura.request("POST", "/api/auth/password-reset", json: ["email": "ann@example.com"]).status == 200)
            let code = try #require(queryItem(try kura.heldLink(to: "ann@example.com", mode: "resetPassword"), "code"))
            let reset = try kura.request(
                "POST", "/api/auth/password-reset/confirm", json: ["code": code, "newPassword": "new-secret"])
            #expect(reset.status == 200, "\(reset)")
            expectRefused(try kura.me(again.idToken))

            // A password change of one's own keeps that session and signs out the others.
            let keeper = try kura.signIn("ann@example.com", "new-secret")
            let bystander = try kura.signIn("ann@example.com", "new-secret")
            for session in [keeper, bystander] { for _ in 0..<2 { _ = try meUser(kura, session.idToken) } }
            expectHot(kura, bystander.idToken)
            let changed = try kura.request(
                "PATCH", "/api/auth/me", json: ["password": "newer-secret"], token: keeper.idToken)
            #expect(changed.status == 200, "\(changed)")
            expectRefused(try kura.me(bystander.idToken))
            _ = try meUser(kura, keeper.idToken)

            // A password set by the administrator signs out everyone.
            try kura.adminUpdate(ann.uid, ["password": "admin-secret"])
            expectRefused(try kura.me(keeper.idToken))

            // Deletion by the administrator.
            let last = try kura.signIn("ann@example.com", "admin-secret")
            _ = try meUser(kura, last.idToken)
            #expect(try kura.request("DELETE", "/api/admin/users/\(ann.uid)").status == 204)
            expectRefused(try kura.me(last.idToken))

            // Deletion of one's own account.
            let bob = try kura.signUp("bob@example.com")
            let bobElsewhere = try kura.signIn("bob@example.com")
            for session in [bob, bobElsewhere] { for _ in 0..<2 { _ = try meUser(kura, session.idToken) } }
            expectHot(kura, bobElsewhere.idToken)
            #expect(try kura.request("DELETE", "/api/auth/me", token: bob.idToken).status == 204)
            expectRefused(try kura.me(bob.idToken))
            expectRefused(try kura.me(bobElsewhere.idToken))
        }
    }

    @Test("concurrent profile writes and reads: each client reads its own last write")
    func concurrentReadYourWrites() throws {
        try withAuthKura(configure: { $0.http.eventLoops = 2 }) { kura in
            let users = try (0..<4).map { try kura.signUp("user\($0)@example.com") }
            let failures = Shared<[String]>([])
            let tokens = users.map(\.idToken)
            onThreads(tokens.count) { index in
                let bearer = TestKura.Auth.header("Bearer \(tokens[index])")
                do {
                    let client = try kura.client()
                    for round in 0..<25 {
                        let name = "u\(index)-\(round)"
                        let patch = try client.request(
                            "PATCH", "/api/auth/me", json: ["displayName": name], auth: bearer)
                        let me = try client.request("GET", "/api/auth/me", auth: bearer)
                        let seen = (me.json["user"] as? [String: Any])?["displayName"] as? String
                        if patch.status != 200 || seen != name {
                            failures.withLock { $0.append("\(name): patch \(patch.status), me saw \(seen ?? "nil")") }
                        }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.current.isEmpty, "\(failures.current)")
        }
    }
}
