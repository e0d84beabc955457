import KuraCore
import KuraModel
import Testing

@testable import KuraRules

/// Rules compare strings, paths and map keys by UTF-8 bytes (docs/api.md, "Identity"): canonically equivalent but
/// byte-different spellings are different values, as the document IDs they name are.
@Suite struct ByteIdentityTests {
    /// が (NFC, one code point) and か + U+3099 (NFD).
    static let nfc = "\u{304C}"
    static let nfd = "\u{304B}\u{3099}"
    /// K and KELVIN SIGN, whose canonical decomposition is K.
    static let kelvin = "\u{212A}"

    @Test(arguments: [
        "resource.data.nfc != resource.data.nfd", "!(resource.data.nfc == resource.data.nfd)",
        "resource.data.nfd < resource.data.nfc", "!(resource.data.nfc < resource.data.nfd)",
        "!(resource.data.nfc in [resource.data.nfd])", "[resource.data.nfc] != [resource.data.nfd]",
        "!({'k': resource.data.nfc} == {'k': resource.data.nfd})", "!(resource.data.nfd in resource.data.keyed)",
        "resource.data.nfc in resource.data.keyed", "resource.data.keyed.get(resource.data.nfd, 0) == 0",
        "!([resource.data.nfc].hasAny([resource.data.nfd]))", "request.auth.uid != resource.data.kelvinName",
        "{resource.data.nfc: 1, resource.data.nfd: 2}.size() == 2",
        "/a/$(resource.data.nfc) != /a/$(resource.data.nfd)",
    ])
    func canonicallyEquivalentStringsDiffer(condition: String) throws {
        let data: JSONObject = [
            "nfc": .string(Self.nfc), "nfd": .string(Self.nfd), "keyed": .object([Self.nfc: 1]),
            "kelvinName": .string(Self.kelvin + "ate"),
        ]
        let decision = try decide(condition, auth: RuleAuth(uid: "Kate"), data: data)
        #expect(decision.isAllowed, "\(condition)")
    }

    @Test("a match literal and a captured variable are compared by bytes")
    func pathMatching() throws {
        let rules = try RuleSet.compile(
            source: """
                match /rooms/\(Self.nfc)/{rest=**} { allow get: if true; }
                match /users/{uid}/{rest=**} { allow get: if request.auth.uid == uid; }
                """, fileName: "t.rules")
        func allowed(_ path: [String], uid: String = "x") -> Bool {
            rules.evaluate(method: .get, path: path, context: RuleContext(auth: RuleAuth(uid: uid))).isAllowed
        }
        #expect(allowed(["rooms", Self.nfc, "m", "1"]))
        #expect(!allowed(["rooms", Self.nfd, "m", "1"]))
        #expect(allowed(["users", "Kate", "n", "1"], uid: "Kate"))
        #expect(!allowed(["users", Self.kelvin + "ate", "n", "1"], uid: "Kate"))
    }

    @Test("get() and exists() look up each spelling's own document")
    func lookupsByBytes() throws {
        let nfcPath = ["groups", Self.nfc, "members", "u1"]
        let decision = try decide(
            "exists(/groups/$(resource.data.nfc)/members/u1) && !exists(/groups/$(resource.data.nfd)/members/u1)",
            data: ["nfc": .string(Self.nfc), "nfd": .string(Self.nfd)],
            lookup: { path in path.elementsEqual(nfcPath, by: { $0.utf8.elementsEqual($1.utf8) }) ? [:] : nil })
        #expect(decision.isAllowed)
    }
}
