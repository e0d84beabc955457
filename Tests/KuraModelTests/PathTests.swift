import KuraModel
import Testing

@Suite struct PathTests {
    static let validDocuments = [
        "users/u1", "users/u1/todos/t9", "/a/b/", "a/日本", "é/ü/日本/語", "a/...",
        "a/" + String(repeating: "x", count: 1500),
    ]
    static let invalidDocuments = [
        "", "/", "users", "users/u1/todos", "users//u1", "users/.", "users/..", "users/__id__", "__x__/a",
        "a/" + String(repeating: "x", count: 1501), Array(repeating: "a", count: 102).joined(separator: "/"),
    ]

    @Test(arguments: validDocuments)
    func acceptsDocumentPaths(_ text: String) throws {
        let path = try DocumentPath(text)
        #expect(path.segments.count % 2 == 0)
    }

    @Test(arguments: invalidDocuments)
    func rejectsDocumentPaths(_ text: String) {
        do {
            _ = try DocumentPath(text)
            Issue.record("accepted \(text.prefix(40))")
        } catch let error as ValidationError {
            #expect(error.code == .invalidPath)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func collectionPaths() throws {
        let collection = try CollectionPath("users/u1/todos")
        #expect(collection.collectionID == "todos")
        #expect(collection.parent == (try DocumentPath("users/u1")))
        #expect(throws: ValidationError.self) { try CollectionPath("users/u1") }
        #expect(throws: ValidationError.self) { try collection.document("a/b") }
        #expect(try collection.document("t1").description == "users/u1/todos/t1")
        #expect(try DocumentPath("users/u1/todos/t1").collection == collection)
        let hundred = Array(repeating: "a", count: 100).joined(separator: "/")
        #expect(throws: Never.self) { try DocumentPath(hundred) }
        #expect(throws: ValidationError.self) { try CollectionPath(hundred + "/b") }
    }

    @Test func underscoresAllowedUnlessBothEnds() throws {
        #expect(throws: Never.self) { try DocumentPath("a/__x") }
        #expect(throws: Never.self) { try DocumentPath("a/x__") }
        #expect(throws: Never.self) { try DocumentPath("a/___") }
        #expect(throws: ValidationError.self) { try DocumentPath("a/____") }
    }

    @Test func documentPathsOrderSegmentWise() throws {
        #expect(try DocumentPath("a/u1") < DocumentPath("a/u1-x"))
        #expect(try DocumentPath("a/b") < DocumentPath("a/b/c/d"))
    }

    @Test func fieldPaths() throws {
        #expect(try FieldPath("a.b.c").segments == ["a", "b", "c"])
        #expect(try FieldPath("a.`b.c`.d").segments == ["a", "b.c", "d"])
        #expect(try FieldPath("`x\\`y`").segments == ["x`y"])
        for bad in ["", "a..b", ".a", "a.", "`a", "`a`b"] {
            #expect(throws: ValidationError.self) { try FieldPath(bad) }
        }
        for segments in [["a"], ["a.b", "c"], ["1x"], ["x`y", "\\"], ["日本"]] {
            let path = try FieldPath(segments: segments)
            #expect(try FieldPath(path.description) == path)
        }
    }

    @Test("a query field's description parses back to it, a data field named like a metadata field included")
    func queryFieldDescriptions() throws {
        // Found by fuzz/QueryFuzz.swift: the data field `id` was described as `id`, which names the document ID.
        for text in [
            "id", "__name__", "createTime", "updateTime", "`id`", "`createTime`", "`updateTime`", "`__name__`",
            "a.id", "`a.b`.c",
        ] {
            let field = try QueryField(text)
            let again = try QueryField(field.description)
            #expect(again == field, "\(text)")
        }
        #expect(try QueryField("`id`").description == "`id`")
        #expect(try QueryField("__name__").description == "id")
    }
}
