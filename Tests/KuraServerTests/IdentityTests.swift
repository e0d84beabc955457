import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Identity is the UTF-8 bytes (docs/api.md, "Identity"): canonically equivalent but byte-different IDs, field
/// names and strings are different names everywhere, over HTTP as in the database (issue 12, item 1).
@Suite struct IdentityTests {
    /// が as one code point (NFC) and as か + combining voiced mark (NFD).
    static let composed = "\u{304C}"
    static let decomposed = "\u{304B}\u{3099}"
    /// café, NFC and NFD.
    static let cafeNFC = "caf\u{E9}"
    static let cafeNFD = "cafe\u{301}"

    static let groupRules = """
        rules_version = '1';
        match /groups/{g} {
          allow read: if request.auth != null;
          allow create: if request.auth != null && request.resource.data.owner == request.auth.uid;
          match /members/{m} {
            allow read: if request.auth != null;
            allow create: if get(/groups/$(g)).data.owner == request.auth.uid;
          }
          match /posts/{p} {
            allow read: if exists(/groups/$(g)/members/$(request.auth.uid));
            allow create: if get(/groups/$(g)).data.owner == request.auth.uid;
          }
        }
        """

    @Test("B, owner of group が, cannot join A's group か\u{3099} nor read its posts; his member row is his own")
    func canonicallyEquivalentGroupsStayApart() throws {
        try withRulesKura(rules: Self.groupRules) { server in
            let a = try server.signUp("a@example.com")
            let b = try server.signUp("b@example.com")
            let groupA = "groups/\(Self.decomposed)"
            let groupB = "groups/\(Self.composed)"
            #expect(try server.request("PUT", docURL(groupA), json: ["data": ["owner": a.uid]], as: a).status == 200)
            let memberA = try server.request(
                "PUT", docURL("\(groupA)/members/\(a.uid)"), json: ["data": ["role": "owner"]], as: a)
            #expect(memberA.status == 200, "\(memberA)")
            let post = try server.request(
                "PUT", docURL("\(groupA)/posts/p1"), json: ["data": ["text": "a-secret"]], as: a)
            #expect(post.status == 200, "\(post)")

            #expect(try server.request("PUT", docURL(groupB), json: ["data": ["owner": b.uid]], as: b).status == 200)
            let memberB = try server.request(
                "PUT", docURL("\(groupB)/members/\(b.uid)"), json: ["data": ["role": "owner"]], as: b)
            #expect(memberB.status == 200, "\(memberB)")

            // The member row is in B's group, not in A's.
            #expect(try server.request("GET", docURL("\(groupB)/members/\(b.uid)")).status == 200)
            #expect(try server.request("GET", docURL("\(groupA)/members/\(b.uid)")).status == 404)
            let membersOfA = try server.request(
                "POST", "/api/query/count", json: ["collection": "\(groupA)/members"])
            #expect(membersOfA.json["count"] as? Int == 1, "\(membersOfA)")

            expectDenied(try server.request("GET", docURL("\(groupA)/posts/p1"), as: b), hiding: "a-secret")
            #expect(try server.request("GET", docURL("\(groupA)/posts/p1"), as: a).status == 200)
        }
    }

    @Test("two documents whose IDs are café in NFC and NFD: each GET answers its own, cached or not")
    func cachedDocumentsDoNotAlias() throws {
        try withTestKura { server in
            try server.putExact("users/a/in/\(Self.cafeNFC)", ["form": "nfc"])
            try server.putExact("users/a/in/\(Self.cafeNFD)", ["form": "nfd"])
            for _ in 0..<2 {  // The first round fills the cache, the second reads it.
                let nfc = try server.request("GET", docURL("users/a/in/\(Self.cafeNFC)"))
                let nfd = try server.request("GET", docURL("users/a/in/\(Self.cafeNFD)"))
                #expect(nfc.data?["form"] as? String == "nfc", "\(nfc)")
                #expect(nfd.data?["form"] as? String == "nfd", "\(nfd)")
                #expect(nfd.bodyBytes.containsSequence(Array(Self.cafeNFD.utf8)))
            }
            #expect(try server.cachedVersion("users/a/in/\(Self.cafeNFC)") == 1)
            let listed = try server.request("GET", "/api/docs/users/a/in")
            #expect(listed.documentIDs.count == 2, "\(listed)")
        }
    }

    @Test("an object with café (NFC) and café (NFD) keys keeps both fields, each readable and queryable")
    func siblingKeysAreTwoFields() throws {
        try withTestKura { server in
            let body = Array(#"{"data":{"\#(Self.cafeNFC)":1,"\#(Self.cafeNFD)":2}}"#.utf8)
            let put = try server.request("PUT", "/api/docs/menus/m1", body: body)
            #expect(put.status == 200, "\(put)")
            let stored = try server.request("GET", "/api/docs/menus/m1")
            #expect(stored.bodyBytes.containsSequence(Array(#""\#(Self.cafeNFC)":1"#.utf8)), "\(stored)")
            #expect(stored.bodyBytes.containsSequence(Array(#""\#(Self.cafeNFD)":2"#.utf8)), "\(stored)")
            for (field, value) in [(Self.cafeNFC, 1), (Self.cafeNFD, 2)] {
                let query: [String: Any] = [
                    "collection": "menus", "where": [["field": "`\(field)`", "op": "==", "value": value]],
                ]
                let found = try server.request("POST", "/api/query", json: query)
                #expect(found.documentIDs == ["m1"], "\(field.unicodeScalars.count) \(found)")
            }
        }
    }

    @Test("renaming a field from its NFC to its NFD spelling moves its index entry")
    func renamedFieldIsReindexed() throws {
        try withTestKura { server in
            let before = Array(#"{"data":{"\#(Self.cafeNFC)":1}}"#.utf8)
            #expect(try server.request("PUT", "/api/docs/menus/m1", body: before).status == 200)
            let after = Array(#"{"data":{"\#(Self.cafeNFD)":1}}"#.utf8)
            #expect(try server.request("PUT", "/api/docs/menus/m1", body: after).status == 200)
            for (field, expected) in [(Self.cafeNFC, [String]()), (Self.cafeNFD, ["m1"])] {
                let query: [String: Any] = [
                    "collection": "menus", "where": [["field": "`\(field)`", "op": "==", "value": 1]],
                ]
                let found = try server.request("POST", "/api/query", json: query)
                #expect(found.documentIDs == expected, "\(field.unicodeScalars.count) \(found)")
            }
        }
    }

    @Test("filters compare strings by bytes, in queries and in listeners: >= が does not match か\u{3099}")
    func filtersCompareBytes() throws {
        try withTestKura { server in
            let query = #"{"collection":"names","where":[{"field":"name","op":">=","value":"\#(Self.composed)"}]}"#
            let stream = try server.listen("?query=" + percentEncoded(query))
            _ = try stream.expect("connected")
            _ = try stream.expect("snapshot")
            // By bytes か\u{3099} (E3 81 8B …) sorts before が (E3 81 8C); String's comparison holds them equal.
            try server.putExact("names/n2", ["name": Self.decomposed])
            try server.putExact("names/n1", ["name": Self.composed])
            let change = try stream.expect("changes")
            #expect(change.data.contains("\"n1\"") && !change.data.contains("\"n2\""), "\(change)")
            let answered = try server.request("POST", "/api/query", body: Array(query.utf8))
            #expect(answered.documentIDs == ["n1"], "\(answered)")
        }
    }

    static let stringRules = """
        rules_version = '1';
        match /equal/{id} { allow write: if request.resource.data.name == '\(composed)'; }
        match /inList/{id} { allow write: if request.resource.data.name in ['\(composed)']; }
        match /mapKey/{id} { allow write: if '\(composed)' in request.resource.data.tags; }
        match /less/{id} { allow write: if request.resource.data.name < '\(composed)'; }
        match /literal/\(composed)/{rest=**} { allow write: if true; }
        match /owners/{owner}/{rest=**} { allow write: if owner == request.resource.data.owner; }
        """

    @Test("rules compare strings, list members, map keys and path literals by bytes")
    func rulesCompareBytes() throws {
        try withRulesKura(rules: Self.stringRules) { server in
            let a = try server.signUp("a@example.com")
            func write(_ path: String, _ data: [String: Any]) throws -> Int {
                try server.request("PUT", docURL(path), json: ["data": data], as: a).status
            }
            #expect(try write("equal/x", ["name": Self.composed]) == 200)
            #expect(try write("equal/y", ["name": Self.decomposed]) == 403)
            #expect(try write("inList/x", ["name": Self.composed]) == 200)
            #expect(try write("inList/y", ["name": Self.decomposed]) == 403)
            #expect(try write("mapKey/x", ["tags": [Self.composed: true]]) == 200)
            #expect(try write("mapKey/y", ["tags": [Self.decomposed: true]]) == 403)
            // By bytes か\u{3099} (E3 81 8B …) sorts before が (E3 81 8C); String's `<` holds them equal.
            #expect(try write("less/x", ["name": Self.decomposed]) == 200)
            #expect(try write("less/y", ["name": Self.composed]) == 403)
            #expect(try write("literal/\(Self.composed)/c/x", ["n": 1]) == 200)
            #expect(try write("literal/\(Self.decomposed)/c/x", ["n": 1]) == 403)
            #expect(try write("owners/\(Self.composed)/c/x", ["owner": Self.composed]) == 200)
            #expect(try write("owners/\(Self.decomposed)/c/x", ["owner": Self.composed]) == 403)
        }
    }

    static let roomRules = """
        rules_version = '1';
        match /rooms/\(composed) { allow read: if request.auth != null; }
        """

    @Test("a read decision remembered on the loop for rooms/が answers for no other spelling")
    func rememberedDecisionsByBytes() throws {
        try withRulesKura(rules: Self.roomRules) { server in
            let a = try server.signUp("a@example.com")
            for room in [Self.composed, Self.decomposed] {
                try server.putExact("rooms/\(room)", ["text": "in \(room.unicodeScalars.count)"])
                #expect(try server.request("GET", docURL("rooms/\(room)")).status == 200)  // cached now
                #expect(try server.cachedVersion("rooms/\(room)") == 1)
            }
            // One connection, so both requests run on one loop and meet its memo.
            let client = try server.client()
            for _ in 0..<2 {
                let allowed = try client.request("GET", docURL("rooms/\(Self.composed)"), auth: a.bearer)
                #expect(allowed.status == 200, "\(allowed)")
                let denied = try client.request("GET", docURL("rooms/\(Self.decomposed)"), auth: a.bearer)
                expectDenied(denied, hiding: "in 2")
            }
        }
    }

    @Test("a document listener on café (NFC) hears nothing of café (NFD)")
    func documentListenerTargetsByBytes() throws {
        try withTestKura { server in
            let stream = try server.listen("?doc=" + percentEncoded("users/a/in/\(Self.cafeNFC)"))
            _ = try stream.expect("connected")
            _ = try stream.expect("snapshot")
            try server.putExact("users/a/in/\(Self.cafeNFD)", ["form": "nfd"])
            try server.putExact("users/a/in/\(Self.cafeNFC)", ["form": "nfc"])
            let event = try stream.expect("changes")
            #expect(event.data.contains("\"nfc\""), "\(event)")
            #expect(!event.data.contains("\"nfd\""), "\(event)")
        }
    }

    @Test("query listeners on groups/が/posts and groups/か\u{3099}/posts neither share a view nor hear each other")
    func queryListenersByBytes() throws {
        try withTestKura { server in
            // Both views start empty (equal), the case where listeners of one target share a computed change.
            let groupA = try server.listen(
                "?query=" + percentEncoded(#"{"collection":"groups/\#(Self.decomposed)/posts"}"#))
            let groupB = try server.listen(
                "?query=" + percentEncoded(#"{"collection":"groups/\#(Self.composed)/posts"}"#))
            for stream in [groupA, groupB] {
                _ = try stream.expect("connected")
                _ = try stream.expect("snapshot")
            }
            try server.putExact("groups/\(Self.decomposed)/posts/p1", ["text": "a-secret"])
            try server.putExact("groups/\(Self.composed)/posts/p2", ["text": "b-first"])
            let changeA = try groupA.expect("changes")
            #expect(changeA.data.contains("a-secret"), "\(changeA)")
            let changeB = try groupB.expect("changes")
            #expect(changeB.data.contains("b-first") && !changeB.data.contains("a-secret"), "\(changeB)")
        }
    }

    @Test("an account cached under a uid with K is not found under the uid spelled with KELVIN SIGN (U+212A)")
    func accountCacheByBytes() throws {
        try withAuthKura { server in
            // Account IDs are random base62; sign up until one has a `K`, whose canonical twin is U+212A.
            var found: Session? = nil
            for attempt in 0..<60 where found == nil {
                let session = try server.signUp("k\(attempt)@example.com")
                if session.uid.contains("K") { found = session }
            }
            let session = try #require(found)
            #expect(try server.request("GET", "/api/auth/me", as: session).status == 200)  // cached now
            let twin = session.uid.replacingOccurrences(of: "K", with: "\u{212A}")
            let own = try server.request("GET", "/api/admin/users/" + percentEncoded(session.uid))
            #expect(own.status == 200, "\(own)")
            let other = try server.request("GET", "/api/admin/users/" + percentEncoded(twin))
            #expect(other.status == 404, "\(other)")
        }
    }
}

extension TestKura {
    /// `put` with the path's bytes percent-encoded (`docURL`).
    @discardableResult
    func putExact(_ path: String, _ data: [String: Any]) throws -> HTTPResponse {
        let response = try request("PUT", docURL(path), json: ["data": data])
        guard response.status == 200 else { throw UnexpectedResponse(response) }
        return response
    }
}

/// `/api/docs/<path>` with the path's UTF-8 bytes percent-encoded, so they reach the server exactly.
func docURL(_ path: String) -> String { "/api/docs/" + percentEncoded(path) }

/// Percent-encodes every byte but unreserved ASCII and `/`, from the UTF-8 bytes (no normalization on the way).
func percentEncoded(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
            UInt8(ascii: "~"), UInt8(ascii: "/"):
            out.append(Character(Unicode.Scalar(byte)))
        default:
            let hex = Array("0123456789ABCDEF")
            out += "%\(hex[Int(byte >> 4)])\(hex[Int(byte & 15)])"
        }
    }
    return out
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in these bytes.
    func containsSequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        for start in 0...(count - needle.count) where self[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }
}
