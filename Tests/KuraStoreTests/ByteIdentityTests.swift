import KuraCore
import KuraModel
import KuraStore
import KuraStoreTestSupport
import Testing

/// Paths, field names and strings have byte identity (docs/api.md, "Identity"): canonically equivalent but
/// byte-different spellings are different names in every type, dictionary and comparison, as in SQLite.
@Suite struct ByteIdentityTests {
    /// が (NFC) and か + U+3099 (NFD).
    static let nfc = "\u{304C}"
    static let nfd = "\u{304B}\u{3099}"
    /// café, NFC and NFD.
    static let cafeNFC = "caf\u{E9}"
    static let cafeNFD = "cafe\u{301}"

    @Test("the two spellings are == as String but different by every byte-identity helper")
    func helpers() {
        #expect(Self.nfc == Self.nfd)  // the hazard these helpers exist for
        #expect(!Self.nfc.bytesEqual(Self.nfd))
        #expect(Self.nfc.bytesEqual(String(decoding: Array(Self.nfc.utf8), as: UTF8.self)))
        #expect(ByteKey(Self.nfc) != ByteKey(Self.nfd))
        #expect(Set([ByteKey(Self.nfc), ByteKey(Self.nfd)]).count == 2)
        #expect(ByteKey(Self.nfd) < ByteKey(Self.nfc))
        #expect(Set([Substring(Self.nfc).description, Self.nfc].map { ByteKey($0) }).count == 1)
    }

    @Test("paths of the two spellings are different keys and order by bytes")
    func paths() throws {
        let (a, b) = (try doc("groups/\(Self.nfc)"), try doc("groups/\(Self.nfd)"))
        #expect(a != b)
        #expect(Set([a, b]).count == 2)
        #expect(b < a && !(a < b))
        let (ca, cb) = (try col("groups/\(Self.nfc)/members"), try col("groups/\(Self.nfd)/members"))
        #expect(ca != cb)
        #expect(Dictionary([(ca, 1), (cb, 2)], uniquingKeysWith: { first, _ in first }).count == 2)
        #expect(try FieldPath(Self.cafeNFC) != FieldPath(Self.cafeNFD))
        #expect(try !FieldPath("a.\(Self.cafeNFC).x").isWithin(FieldPath("a.\(Self.cafeNFD)")))
    }

    @Test("a backtick followed by a combining mark is escaped in a field path's dotted form")
    func backtickWithCombiningMark() throws {
        let path = try FieldPath(segments: ["a`\u{301}b"])
        #expect(try FieldPath(path.description) == path)
    }

    @Test("JSON objects keep NFC and NFD keys as two members; strings compare by bytes")
    func jsonObjects() throws {
        let parsed = try JSONValue.parse(Array(#"{"\#(Self.cafeNFC)":1,"\#(Self.cafeNFD)":2}"#.utf8))
        let object = try #require(parsed.objectValue)
        #expect(object.count == 2)
        #expect(object[Self.cafeNFC] == .int(1))
        #expect(object[Self.cafeNFD] == .int(2))
        // Past the size where objects keep a key index, too.
        var large = JSONObject()
        for index in 0..<20 { large["k\(index)"] = .int(Int64(index)) }
        large[Self.cafeNFC] = 1
        large[Self.cafeNFD] = 2
        #expect(large.count == 22 && large[Self.cafeNFC] == 1 && large[Self.cafeNFD] == 2)
        #expect(JSONValue.string(Self.nfc) != .string(Self.nfd))
        #expect(JSONObject([(Self.cafeNFC, 1)]) != JSONObject([(Self.cafeNFD, 1)]))
        #expect(ValueOrdering.compare(.string(Self.nfd), .string(Self.nfc)) == -1)
    }

    @Test(
        "a write to groups/が/members lands in that collection even when groups/か\u{3099}/members is cached",
        arguments: EngineUnderTest.all)
    func collectionsDoNotAlias(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        try h.store.set(doc("groups/\(Self.nfd)/members/a"), object(["role": "owner"]))
        try h.store.set(doc("groups/\(Self.nfc)/members/b"), object(["role": "owner"]))
        #expect(try h.store.get(doc("groups/\(Self.nfc)/members/b")) != nil)
        #expect(try h.store.get(doc("groups/\(Self.nfd)/members/b")) == nil)
        let members = try h.store.query(StructuredQuery(.collection(col("groups/\(Self.nfd)/members"))))
        #expect(members.documents.map(\.id) == ["a"])
    }

    @Test("renaming a field from NFC to NFD replaces its index entries", arguments: EngineUnderTest.all)
    func fieldRenameReindexes(_ engine: EngineUnderTest) throws {
        let h = try engine.make()
        try h.store.set(doc("menus/m1"), JSONObject([(Self.cafeNFC, 1)]))
        try h.store.set(doc("menus/m1"), JSONObject([(Self.cafeNFD, 1)]))
        for (name, expected) in [(Self.cafeNFC, [String]()), (Self.cafeNFD, ["m1"])] {
            var query = StructuredQuery(.collection(try col("menus")))
            query.filters = [Filter(.field(try FieldPath(segments: [name])), .equal, 1)]
            #expect(try h.store.query(query).documents.map(\.id) == expected, "\(name.unicodeScalars.count)")
        }
    }
}
