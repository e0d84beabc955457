import Foundation
import KuraCore
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Revocation is immediate on listen streams: whatever withdraws a user's access in this process ends the
/// user's streams with `auth_revoked` before any further change is written to them, long before the periodic
/// re-check (`realtime.authCheckSeconds`, set to an hour here so that only the immediate path can pass).
@Suite struct ListenRevocationTests {
    /// Ways to withdraw access.
    enum Revocation: String, CaseIterable, CustomTestStringConvertible {
        case signOut, signOutEverywhere, disable, delete, passwordByAdmin, claimsChange, emailVerificationWithdrawn
        var testDescription: String { rawValue }
    }

    private static func slowBackstop(_ configuration: inout KuraConfiguration) {
        configuration.realtime.authCheckSeconds = 3600
        configuration.auth.tokenRecheckInterval = 3600
    }

    @Test(
        "a revocation ends the stream at once, and no change after it reaches the stream",
        arguments: Revocation.allCases)
    func revocationEndsStream(_ how: Revocation) throws {
        try withRulesKura(configure: Self.slowBackstop) { server in
            let a = try server.signUp("a@example.com")
            if how == .emailVerificationWithdrawn { try server.adminUpdate(a.uid, ["emailVerified": true]) }
            try server.put("users/\(a.uid)/notes/n1", ["text": "before"])
            let stream = try server.listen("?doc=users/\(a.uid)/notes/n1", auth: a.bearer)
            _ = try stream.expect("connected")
            _ = try stream.expect("snapshot")
            switch how {
            case .signOut:
                #expect(try server.request("POST", "/api/auth/signout", json: [:], token: a.idToken).status == 200)
            case .signOutEverywhere:
                let other = try server.signIn("a@example.com")
                #expect(
                    try server.request("POST", "/api/auth/signout", json: ["all": true], token: other.idToken).status
                        == 200)
            case .disable: try server.adminUpdate(a.uid, ["disabled": true])
            case .delete: #expect(try server.request("DELETE", "/api/admin/users/\(a.uid)").status == 204)
            case .passwordByAdmin: try server.adminUpdate(a.uid, ["password": "another-pw"])
            case .claimsChange: try server.adminUpdate(a.uid, ["customClaims": ["role": "reader"]])
            case .emailVerificationWithdrawn: try server.adminUpdate(a.uid, ["emailVerified": false])
            }
            // Written after the revocation answered: it must never reach the revoked stream.
            try server.put("users/\(a.uid)/notes/n1", ["text": "after"])
            var skipped: [SSEEvent] = []
            let revoked = try stream.next("auth_revoked", timeout: 10, skipped: &skipped)
            #expect(revoked?.json["code"] as? String == "UNAUTHENTICATED", "\(skipped)")
            #expect(!skipped.contains { $0.name == "changes" }, "\(skipped)")
            #expect(try stream.next(timeout: 3) == nil)
            #expect(stream.ended)
        }
    }

    @Test("signing out one session ends that session's streams only")
    func oneSession() throws {
        try withRulesKura(configure: Self.slowBackstop) { server in
            let a = try server.signUp("a@example.com")
            let laptop = try server.signIn("a@example.com")
            try server.put("users/\(a.uid)/notes/n1", ["text": "before"])
            let phoneStream = try server.listen("?doc=users/\(a.uid)/notes/n1", auth: a.bearer)
            let laptopStream = try server.listen("?doc=users/\(a.uid)/notes/n1", auth: laptop.bearer)
            for stream in [phoneStream, laptopStream] {
                _ = try stream.expect("connected")
                _ = try stream.expect("snapshot")
            }
            #expect(try server.request("POST", "/api/auth/signout", json: [:], token: a.idToken).status == 200)
            try server.put("users/\(a.uid)/notes/n1", ["text": "after"])
            _ = try phoneStream.expect("auth_revoked")
            #expect(try laptopStream.expect("changes").data.contains("after"))
        }
    }

    @Test("a password change by the user ends the user's other sessions' streams, not its own")
    func passwordChange() throws {
        try withRulesKura(configure: Self.slowBackstop) { server in
            let a = try server.signUp("a@example.com")
            let other = try server.signIn("a@example.com")
            try server.put("users/\(a.uid)/notes/n1", ["text": "before"])
            let own = try server.listen("?doc=users/\(a.uid)/notes/n1", auth: a.bearer)
            let others = try server.listen("?doc=users/\(a.uid)/notes/n1", auth: other.bearer)
            for stream in [own, others] {
                _ = try stream.expect("connected")
                _ = try stream.expect("snapshot")
            }
            #expect(
                try server.request("PATCH", "/api/auth/me", json: ["password": "new-secret"], token: a.idToken).status
                    == 200)
            try server.put("users/\(a.uid)/notes/n1", ["text": "after"])
            _ = try others.expect("auth_revoked")
            #expect(try own.expect("changes").data.contains("after"))
        }
    }
}
