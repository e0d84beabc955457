import Foundation
import KuraServerTestSupport
import Testing

/// `matches()` in rules, over HTTP: the input is user data, so the engine must be linear-time (RE2).
@Suite struct RulesRegexTests {
    static let rules = """
        rules_version = '1';
        match /names/{id} {
          allow read: if true;
          allow write: if request.resource.data.name.matches('(a+)+$');
        }
        """

    @Test("a pathological pattern against a 100 000-character value answers, allowing a match and denying a miss")
    func pathologicalValue() throws {
        try withRulesKura(rules: Self.rules) { server in
            let user = try server.signUp("ann@example.com")
            let long = String(repeating: "a", count: 100_000)
            let match = try server.request("PUT", "/api/docs/names/n1", json: ["data": ["name": long]], as: user)
            #expect(match.status == 200, "\(match.status) \(match.errorCode ?? "")")
            let miss = try server.request(
                "PUT", "/api/docs/names/n2", json: ["data": ["name": long + "b"]], as: user)
            expectError(miss, 403, .permissionDenied)
        }
    }
}
