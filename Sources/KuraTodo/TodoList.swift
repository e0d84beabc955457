import Foundation
import KuraClient

/// One signed-in user's to-do list on KuraClient: what the seed app's screens do, without any screen (an iOS app,
/// `kura-todo` and the tests use it alike).
public struct TodoList: Sendable {
    /// Why an operation on the list could not run.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// No user is signed in.
        case signedOut
        /// The title was refused before anything was sent.
        case title(TodoTitle.Problem)
        /// No to-do has this ID or an ID starting with it.
        case notFound(String)
        /// More than one to-do's ID starts with this.
        case ambiguous(String)

        public var description: String {
            switch self {
            case .signedOut: "not signed in"
            case .title(.blank): "a to-do needs a title"
            case .title(.tooLong): "a to-do's title is at most \(TodoTitle.maxLength) characters"
            case .notFound(let prefix): "no to-do \(prefix)"
            case .ambiguous(let prefix): "\(prefix) is ambiguous"
            }
        }
    }

    /// The client the list goes through.
    public let kura: Kura

    public init(kura: Kura) { self.kura = kura }

    /// `users/{uid}/todos` of the signed-in user.
    public func collection() throws -> CollectionReference {
        guard let user = kura.auth.currentUser else { throw Failure.signedOut }
        return kura.collection("users").document(user.uid).collection("todos")
    }

    /// The list in the order every client shows it: oldest first.
    public func query() throws -> Query { try collection().order(by: "createdAt") }

    /// Adds a to-do (its title cleaned first); returns its reference. With the offline cache and no server, it
    /// returns once the write is queued.
    @discardableResult
    public func add(_ text: String) async throws -> DocumentReference {
        switch TodoTitle.clean(text) {
        case .failure(let problem): throw Failure.title(problem)
        case .success(let title): return try await collection().addDocument(from: TodoItem(title: title))
        }
    }

    /// Every to-do, oldest first.
    public func items() async throws -> [TodoItem] { try Self.items(in: try await query().getDocuments()) }

    /// Marks a to-do done or not done.
    public func setDone(_ reference: DocumentReference, _ done: Bool) async throws {
        try await reference.updateData(["done": .bool(done)])
    }

    /// Deletes a to-do.
    public func remove(_ reference: DocumentReference) async throws { try await reference.delete() }

    /// The to-do whose ID is `prefix` or, failing that, the only one whose ID starts with it.
    public func find(_ prefix: String) async throws -> DocumentReference {
        let todos = try collection()
        let all = try await todos.getDocuments().documents.map(\.documentID)
        if all.contains(prefix) { return todos.document(prefix) }
        let matches = all.filter { $0.hasPrefix(prefix) }
        guard matches.count == 1 else {
            throw matches.isEmpty ? Failure.notFound(prefix) : Failure.ambiguous(prefix)
        }
        return todos.document(matches[0])
    }

    /// The list, again after every change (in this process, another, or the web app), until cancelled.
    public func snapshots() throws -> AsyncThrowingStream<QuerySnapshot, Error> { try query().snapshots() }

    /// The to-dos of a snapshot of `query()`.
    public static func items(in snapshot: QuerySnapshot) -> [TodoItem] {
        snapshot.documents.compactMap { try? $0.data(as: TodoItem.self) }
    }
}
