import Foundation
import KuraClient
import KuraServerTestSupport
import KuraTestSupport
import KuraTodo
import Testing

/// TodoList against a real server with the to-do rules: the operations of the seed app's screens.
@Suite struct TodoListServerTests {
    @Test func addMarkDoneAndDelete() async throws {
        try await withTodoServer { server in
            let kura = client(server)
            _ = try await kura.auth.createUser(withEmail: uniqueEmail(), password: "secret-1")
            let list = TodoList(kura: kura)
            let milk = try await list.add("  Buy \n milk ")
            try await list.add("牛乳を買う")
            var items = try await list.items()
            #expect(items.map(\.title) == ["Buy milk", "牛乳を買う"])
            #expect(items.allSatisfy { !$0.done && $0.createdAt != nil })
            #expect(TodoTitle.counts(items) == (2, 0))

            try await list.setDone(try await list.find(milk.documentID), true)
            items = try await list.items()
            #expect(items.first?.done == true)
            #expect(TodoTitle.counts(items) == (1, 1))

            try await list.remove(milk)
            #expect(try await list.items().map(\.title) == ["牛乳を買う"])
            await #expect(throws: TodoList.Failure.notFound("nope")) { try await list.find("nope") }
        }
    }

    @Test func titlesAreCheckedBeforeSendingAndByTheRules() async throws {
        try await withTodoServer { server in
            let kura = client(server)
            _ = try await kura.auth.createUser(withEmail: uniqueEmail(), password: "secret-1")
            let list = TodoList(kura: kura)
            await #expect(throws: TodoList.Failure.title(.blank)) { try await list.add(" \n ") }
            await #expect(throws: TodoList.Failure.title(.tooLong)) {
                try await list.add(String(repeating: "x", count: 501))
            }
            // Past the client's check, the server's rules refuse the same shapes.
            let refused = await #expect(throws: KuraError.self) {
                try await list.collection().addDocument(data: [
                    "title": .string("   "), "done": .bool(false), "createdAt": .string("2026-12-03T00:00:00Z"),
                ])
            }
            #expect(refused?.code == .permissionDenied)
        }
    }

    @Test func anotherUserCannotReadTheList() async throws {
        try await withTodoServer { server in
            let alice = client(server)
            let ann = try await alice.auth.createUser(withEmail: uniqueEmail("alice"), password: "secret-1")
            try await TodoList(kura: alice).add("private")
            let bob = client(server)
            _ = try await bob.auth.createUser(withEmail: uniqueEmail("bob"), password: "secret-1")
            let refused = await #expect(throws: KuraError.self) {
                _ = try await bob.collection("users").document(ann.user.uid).collection("todos").getDocuments()
            }
            #expect(refused?.code == .permissionDenied)
        }
    }

    @Test func signedOutListsAreRefusedBeforeAnyRequest() async throws {
        try await withTodoServer { server in
            let list = TodoList(kura: client(server))
            #expect(throws: TodoList.Failure.signedOut) { try list.collection() }
        }
    }
}
