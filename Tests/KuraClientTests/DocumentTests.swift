import Foundation
import KuraClient
import Testing

/// Document references against a real server: reads, writes, `FieldValue`s, `Codable`, errors.
@Suite struct DocumentTests {
    struct Todo: Codable, Equatable {
        @DocumentID var id: String?
        var title: String
        var done: Bool
        @ServerTimestamp var createdAt: Date?
    }

    @Test func setGetUpdateMergeDelete() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let document = kura.collection("users").document(uid).collection("todos").document("t1")
            #expect(document.path == "users/\(uid)/todos/t1")
            #expect(document.parent.parent?.documentID == uid)
            #expect(try await document.getDocument().exists == false)

            let data: DocumentData = [
                "title": "milk", "done": false, "count": 9_007_199_254_740_993, "ratio": 2.0, "note": "é\n\"😀",
                "tags": ["a", "b"], "address": ["city": "Kyoto", "zip": "600"],
            ]
            try await document.setData(data)
            let snapshot = try await document.getDocument()
            #expect(snapshot.exists)
            #expect(snapshot.fields == data)
            #expect(snapshot.version == 1)
            #expect(snapshot["address.city"] == "Kyoto")
            #expect(snapshot.get("address.city") as? String == "Kyoto")
            #expect(snapshot.createTime != nil)
            // Integers beyond 2^53 stay exact; doubles stay doubles.
            #expect(try await server.documentJSON(document.path)?["version"] as? Int == 1)
            #expect(snapshot["count"] == .integer(9_007_199_254_740_993))
            #expect(snapshot["ratio"] == .double(2))

            try await document.updateData(["done": true, "address.city": "Osaka"])
            var after = try await document.getDocument()
            #expect(after["done"] == true)
            #expect(after["address"] == ["city": "Osaka", "zip": "600"])
            #expect(after.version == 2)

            try await document.setData(["address": ["zip": "530"], "extra": 1], merge: true)
            after = try await document.getDocument()
            #expect(after["address"] == ["city": "Osaka", "zip": "530"])
            #expect(after["title"] == "milk")

            try await document.setData(["only": true])
            #expect(try await document.getDocument().fields == ["only": true])

            try await document.delete()
            #expect(try await document.getDocument().exists == false)
            try await document.delete()  // deleting a missing document succeeds
        }
    }

    @Test func fieldValueTransforms() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let document = kura.document("users/\(uid)/stats/s")
            let before = Date()
            try await document.setData([
                "plays": 1, "createdAt": FieldValue.serverTimestamp(), "tags": ["a"], "gone": true,
                "nested": ["n": FieldValue.increment(5)],
            ])
            try await document.updateData([
                "plays": FieldValue.increment(2), "tags": FieldValue.arrayUnion(["b", "a"]),
                "gone": FieldValue.delete(), "nested.n": FieldValue.increment(0.5),
            ])
            try await document.updateData(["tags": FieldValue.arrayRemove(["a"])])
            let snapshot = try await document.getDocument()
            #expect(snapshot["plays"] == 3)
            #expect(snapshot["tags"] == ["b"])
            #expect(snapshot["gone"] == nil)
            #expect(snapshot["nested"]?["n"]?.doubleValue == 5.5)
            let created = try #require(snapshot["createdAt"]?.dateValue)
            #expect(created.timeIntervalSince(before) > -1 && created.timeIntervalSinceNow < 1)
        }
    }

    @Test func codableDocuments() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let todos = kura.collection("users/\(uid)/todos")
            let reference = try await todos.addDocument(from: Todo(title: "eggs", done: false))
            #expect(reference.documentID.count == 20)
            let todo = try await reference.getDocument(as: Todo.self)
            #expect(todo.id == reference.documentID)
            #expect(todo.title == "eggs")
            let created = try #require(todo.createdAt)
            // The server's commit time (generous bound: the machine may be busy).
            #expect(abs(created.timeIntervalSinceNow) < 120)

            var changed = todo
            changed.done = true
            try await reference.setData(from: changed)
            #expect(try await reference.getDocument(as: Todo.self).done)
            #expect(try await server.document(reference.path)?["id"] == nil)

            let added = try await todos.addDocument(data: ["title": "bread", "done": false])
            #expect(try await added.getDocument()["title"] == "bread")

            let missing = await #expect(throws: KuraError.self) {
                try await todos.document("nope").getDocument(as: Todo.self)
            }
            #expect(missing?.code == .notFound)
        }
    }

    @Test func serverErrorsArriveAsKuraErrors() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let missing = await #expect(throws: KuraError.self) {
                try await kura.document("users/\(uid)/todos/none").updateData(["a": 1])
            }
            #expect(missing?.code == .notFound)

            // The default rules let a user touch only users/{uid}/**.
            let (_, otherUID) = try await signedInClient(server)
            let denied = await #expect(throws: KuraError.self) {
                try await kura.document("users/\(otherUID)/todos/t").setData(["a": 1])
            }
            #expect(denied?.code == .permissionDenied)
            let deniedRead = await #expect(throws: KuraError.self) {
                try await kura.document("users/\(otherUID)").getDocument()
            }
            #expect(deniedRead?.code == .permissionDenied)

            let badPath = await #expect(throws: KuraError.self) {
                try await kura.document("users/\(uid)/todos").getDocument()
            }
            #expect(badPath?.code == .invalidPath)

            // Signed out: anonymous, also denied by the default rules.
            let anonymous = makeClient(server)
            let unauthenticated = await #expect(throws: KuraError.self) {
                try await anonymous.document("users/\(uid)").getDocument()
            }
            #expect(unauthenticated?.code == .permissionDenied)
        }
    }

    @Test func unreachableServerIsUnavailable() async throws {
        let server = try await testServer()
        let kura = makeClient(server)
        await server.shutdownOffPool()
        let error = await #expect(throws: KuraError.self) { try await kura.document("a/b").getDocument() }
        #expect(error?.code == .unavailable)
        #expect(error?.isNetworkFailure == true)
    }

    @Test func batchesApplyAllOrNothing() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let a = kura.document("users/\(uid)/items/a")
            let b = kura.document("users/\(uid)/items/b")
            try await a.setData(["v": 1])
            let batch = kura.batch()
            batch.setData(["v": 2], forDocument: b)
                .updateData(["v": FieldValue.increment(10)], forDocument: a)
            try await batch.commit()
            #expect(try await a.getDocument()["v"] == 11)
            #expect(try await b.getDocument()["v"] == 2)

            // One failing write (an update of a missing document) and nothing applies.
            let failing = kura.batch()
            failing.deleteDocument(a)
            failing.updateData(["v": 3], forDocument: kura.document("users/\(uid)/items/missing"))
            let error = await #expect(throws: KuraError.self) { try await failing.commit() }
            #expect(error?.code == .notFound)
            #expect(try await a.getDocument().exists)
            await #expect(throws: KuraError.self) { try await batch.commit() }  // a batch commits once
        }
    }
}
