import Foundation
import KuraCore
import KuraModel
import KuraServer
import KuraServerTestSupport
import Testing

/// Claims that grant power are the account's as it is now, not as the ID token was issued: a claims change
/// takes effect on the next request, for admin endpoints and for the security rules' `request.auth.token`.
@Suite struct AuthClaimsTests {
    @Test("a demoted administrator's old ID token lists no users and cannot re-promote itself")
    func demotedAdmin() throws {
        try withRulesKura { server in
            let boss = try server.signUpAdmin("boss@example.com")
            #expect(jwtSegment(boss.idToken, 1)["admin"] as? Bool == true)
            #expect(try server.request("GET", "/api/admin/users", as: boss).status == 200)
            try server.adminUpdate(boss.uid, ["customClaims": [String: Any]()])
            expectError(try server.request("GET", "/api/admin/users", as: boss), 403, .permissionDenied)
            expectError(
                try server.request(
                    "PATCH", "/api/admin/users/\(boss.uid)", json: ["customClaims": ["admin": true]], as: boss),
                403, .permissionDenied)
            let account = try server.request("GET", "/api/admin/users/\(boss.uid)")
            #expect(((account.json["user"] as? [String: Any])?["customClaims"] as? [String: Any])?.isEmpty == true)
        }
    }

    @Test("a promotion applies to a token issued before it")
    func promotion() throws {
        try withRulesKura { server in
            let ann = try server.signUp("ann@example.com")
            expectError(try server.request("GET", "/api/admin/users", as: ann), 403, .permissionDenied)
            try server.adminUpdate(ann.uid, ["customClaims": ["admin": true]])
            #expect(try server.request("GET", "/api/admin/users", as: ann).status == 200)
        }
    }

    @Test("rules read request.auth.token from the account as it is now")
    func rulesSeeCurrentClaims() throws {
        let rules = """
            rules_version = '1';
            match /staff/{doc} {
              allow read, write: if request.auth != null && request.auth.token.role == 'staff';
            }
            """
        try withRulesKura(rules: rules) { server in
            let ann = try server.signUp("ann@example.com")
            try server.adminUpdate(ann.uid, ["customClaims": ["role": "staff"]])
            try server.put("staff/memo", ["text": "internal"])
            // Twice each: the second answer may come from the per-loop caches, which must not outlive the change.
            for _ in 0..<2 { #expect(try server.request("GET", "/api/docs/staff/memo", as: ann).status == 200) }
            try server.adminUpdate(ann.uid, ["customClaims": ["role": "former"]])
            for _ in 0..<2 {
                expectError(try server.request("GET", "/api/docs/staff/memo", as: ann), 403, .permissionDenied)
                expectError(
                    try server.request("PUT", "/api/docs/staff/memo", json: ["data": ["text": "x"]], as: ann), 403,
                    .permissionDenied)
            }
        }
    }
}
