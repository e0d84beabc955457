import Foundation
import KuraPostgres
import KuraServerTestSupport
import KuraTestSupport
import Testing

@testable import KuraServer

/// A revocation answers only once every other live node applied it (docs/design/scaling.md, "What nodes tell each
/// other"): the very next request to the other node, with no wait in between, is refused.
extension ClusterNodeTests {
    enum Barrier: String, CaseIterable, CustomTestStringConvertible {
        case signOut, signOutEverywhere, disable, delete, passwordByAdmin, passwordByUser, claimsChange, displayName
        var testDescription: String { rawValue }
    }

    @Test(
        "after a revocation on one node answers, the other refuses the token on its very next request",
        arguments: Barrier.allCases)
    func revocationHoldsAtOnce(_ how: Barrier) throws {
        try Self.withTwoNodes { a, b, _ in
            let user = try a.signUp("a@example.com", displayName: "Before")
            // A second session of the same user: the one a password change by the user ends.
            let other = try a.signIn("a@example.com")
            for token in [user.idToken, other.idToken] {
                // B verifies the tokens once and caches them (and the account) for the next hour.
                #expect(try b.me(token).status == 200)
                #expect(try b.me(token).status == 200)
            }
            switch how {
            case .signOut:
                #expect(try a.request("POST", "/api/auth/signout", json: [:], token: other.idToken).status == 200)
            case .signOutEverywhere:
                let response = try a.request("POST", "/api/auth/signout", json: ["all": true], token: user.idToken)
                #expect(response.status == 200)
            case .disable: try a.adminUpdate(user.uid, ["disabled": true])
            case .delete: #expect(try a.request("DELETE", "/api/admin/users/\(user.uid)").status == 204)
            case .passwordByAdmin: try a.adminUpdate(user.uid, ["password": "another-pw"])
            case .passwordByUser:
                let response = try a.request(
                    "PATCH", "/api/auth/me", json: ["password": "another-pw"], token: user.idToken)
                #expect(response.status == 200)
            case .claimsChange: try a.adminUpdate(user.uid, ["customClaims": ["role": "reader"]])
            case .displayName: try a.adminUpdate(user.uid, ["displayName": "After"])
            }
            // No waiting: A answered, so B has applied it.
            let me = try b.me(other.idToken)
            switch how {
            case .claimsChange:
                let claims = (me.json["user"] as? [String: Any])?["customClaims"] as? [String: Any]
                #expect(claims?["role"] as? String == "reader")
            case .displayName:
                #expect((me.json["user"] as? [String: Any])?["displayName"] as? String == "After")
            default:
                #expect(me.status == 401)
            }
            // The session a user's own password change keeps, and a sign-out of another session, stay valid.
            let kept = try b.me(user.idToken).status
            #expect(kept == ([.signOut, .passwordByUser, .claimsChange, .displayName].contains(how) ? 200 : 401))
        }
    }

    @Test("a node that stopped is not waited for; one that vanished delays a revocation by the wait at most")
    func revocationWithANodeDown() throws {
        let wait = 300
        try Self.withTwoNodes(configure: { $0.clusterRevocationWait = Double(wait) / 1000 }) { a, b, url in
            func aliveNodes() throws -> Int64? {
                try TestThread {
                    try PostgresConnection(url: url).query("SELECT count(*) FROM cluster_nodes").int(0, 0)
                }
                .join()
            }
            #expect(waitUntil(timeout: 10) { (try? aliveNodes()) == 2 })
            let user = try a.signUp("a@example.com")
            let other = try a.signIn("a@example.com")
            #expect(try b.me(other.idToken).status == 200)
            // A node that vanished without a word (killed): its row says it is alive, and it never acknowledges.
            try TestThread {
                try PostgresConnection(url: url).query(
                    "INSERT INTO cluster_nodes (name, seen_at) VALUES ('vanished', now() + interval '1 hour')")
            }.join()
            let started = ContinuousClock.now
            #expect(try a.request("POST", "/api/auth/signout", json: [:], token: other.idToken).status == 200)
            #expect(ContinuousClock.now - started >= .milliseconds(wait))
            #expect(try b.me(other.idToken).status == 401)

            // A node that stopped removed itself: nobody is waited for but the vanished one.
            b.stop()
            #expect(try aliveNodes() == 2)
            #expect(try a.request("POST", "/api/auth/signout", json: [:], token: user.idToken).status == 200)
            #expect(try a.me(user.idToken).status == 401)
        }
    }
}
