import Foundation
import KuraClient

/// Why a notebooks operation was refused, before or instead of the server's own answer.
public enum NotesError: Error, Sendable, Equatable {
    case notSignedIn
    /// The address is not verified: the rules keep the notebooks closed until it is.
    case notVerified
    case blankName, nameTooLong
    /// The user has a notebook of that name (compared normalized); it carries that notebook's name.
    case nameTaken(String)
    case notebookNotFound(String)
    case wordNotFound(String)
    case word(NotesText.WordProblem)
}

/// The signed-in user's notebooks and words on a Kura server through `KuraClient`, for any Swift app (the
/// terminal's `kura-notes`, an iOS app). Documents (apps/notes/README.md): `notes/{uid}/notebooks/{id}`
/// (`name`, `nameKey`, `createdAt`), `notes/{uid}/notebookNames/{key}` (`notebook`) and `notes/{uid}/words/{id}`
/// (`notebook`, `word`, `explanation`, `createdAt`).
public struct NotesBook: Sendable {
    public let kura: Kura
    /// The most writes in one commit (the server's limit, docs/api.md).
    public static let commitLimit = 500

    public init(kura: Kura) { self.kura = kura }

    private func root() throws -> DocumentReference {
        guard let user = kura.auth.currentUser else { throw NotesError.notSignedIn }
        guard user.isEmailVerified else { throw NotesError.notVerified }
        return kura.collection("notes").document(user.uid)
    }

    private func notebooksCollection() throws -> CollectionReference { try root().collection("notebooks") }
    private func namesCollection() throws -> CollectionReference { try root().collection("notebookNames") }
    private func wordsCollection() throws -> CollectionReference { try root().collection("words") }

    private static func now() -> String { ISO8601DateFormatter().string(from: Date()) }

    /// Every notebook, by normalized name.
    public func notebooks() async throws -> [Notebook] {
        let snapshot = try await notebooksCollection().getDocuments()
        return snapshot.documents.compactMap { document in
            guard let name = document.fields["name"]?.stringValue else { return nil }
            return Notebook(
                id: document.documentID, name: name, nameKey: document.fields["nameKey"]?.stringValue,
                createdAt: document.fields["createdAt"]?.stringValue ?? "")
        }.sorted { (NotesText.normalize($0.name), $0.id) < (NotesText.normalize($1.name), $1.id) }
    }

    /// The notebook called `name` (compared normalized) or with that ID.
    public func notebook(_ nameOrID: String) async throws -> Notebook {
        let all = try await notebooks()
        let key = NotesText.nameKey(nameOrID)
        if let notebook = all.first(where: { $0.nameKey == key }) ?? all.first(where: { $0.id == nameOrID }) {
            return notebook
        }
        throw NotesError.notebookNotFound(nameOrID)
    }

    /// Creates a notebook; its name key is created in the same commit with the precondition that it does not
    /// exist, so two clients creating the same name at once cannot both succeed.
    public func createNotebook(named text: String) async throws -> Notebook {
        let name = try Self.checkedName(text)
        let key = NotesText.nameKey(name)
        let keyRef = try namesCollection().document(key)
        let notebookRef = try notebooksCollection().document()
        let createdAt = Self.now()
        do {
            try await kura.runTransaction { transaction in
                if try await transaction.getDocument(keyRef).exists { throw NotesError.nameTaken(name) }
                try transaction.setData(["notebook": .string(notebookRef.documentID)], forDocument: keyRef)
                try transaction.setData(
                    ["name": .string(name), "nameKey": .string(key), "createdAt": .string(createdAt)],
                    forDocument: notebookRef)
            }
        } catch let error as KuraError where error.code == .permissionDenied {
            // Taken between our read and our commit: the rules judge the second create an update.
            if try await keyRef.getDocument().exists { throw NotesError.nameTaken(name) }
            throw error
        }
        return Notebook(id: notebookRef.documentID, name: name, nameKey: key, createdAt: createdAt)
    }

    /// Renames a notebook; when the name key changes, the new key replaces the old one in the same commit.
    public func renameNotebook(_ id: String, to text: String) async throws -> Notebook {
        let name = try Self.checkedName(text)
        let key = NotesText.nameKey(name)
        let notebookRef = try notebooksCollection().document(id)
        let names = try namesCollection()
        let createdAt: String
        do {
            createdAt = try await kura.runTransaction { transaction in
                let current = try await transaction.getDocument(notebookRef)
                guard let fields = current.fields else { throw NotesError.notebookNotFound(id) }
                let oldKey = fields["nameKey"]?.stringValue ?? ""
                if oldKey != key {
                    if try await transaction.getDocument(names.document(key)).exists {
                        throw NotesError.nameTaken(name)
                    }
                    try transaction.setData(["notebook": .string(id)], forDocument: names.document(key))
                    if !oldKey.isEmpty { try transaction.deleteDocument(names.document(oldKey)) }
                }
                try transaction.updateData(
                    ["name": .string(name), "nameKey": .string(key), "updatedAt": .string(Self.now())],
                    forDocument: notebookRef)
                return fields["createdAt"]?.stringValue ?? ""
            }
        } catch let error as KuraError where error.code == .permissionDenied {
            if try await names.document(key).getDocument().exists { throw NotesError.nameTaken(name) }
            throw error
        }
        return Notebook(id: id, name: name, nameKey: key, createdAt: createdAt)
    }

    /// How many words a notebook holds (counted by the server).
    public func wordCount(in notebook: String) async throws -> Int {
        try await wordsCollection().whereField("notebook", isEqualTo: .string(notebook)).count()
    }

    /// Deletes a notebook, its name key and its words; returns how many words went. One atomic commit when they
    /// fit (up to 498 words); else the words in commits of 500 first and the notebook with the last ones, so a
    /// delete that stops halfway leaves the notebook with fewer words, and deleting it again finishes.
    public func deleteNotebook(_ notebook: Notebook) async throws -> Int {
        let words = try await wordsCollection().whereField("notebook", isEqualTo: .string(notebook.id))
            .getDocuments().documents.map(\.reference)
        var rest = words[...]
        while rest.count + 2 > Self.commitLimit {
            let batch = kura.batch()
            for reference in rest.prefix(Self.commitLimit) { batch.deleteDocument(reference) }
            try await batch.commit()
            rest = rest.dropFirst(Self.commitLimit)
        }
        let batch = kura.batch()
        for reference in rest { batch.deleteDocument(reference) }
        batch.deleteDocument(try notebooksCollection().document(notebook.id))
        batch.deleteDocument(try namesCollection().document(notebook.nameKey))
        try await batch.commit()
        return words.count
    }

    /// The words of one notebook, or of every notebook when `notebook` is `nil`, by normalized word.
    public func words(in notebook: String? = nil) async throws -> [Word] {
        var query = try wordsCollection().query
        if let notebook { query = query.whereField("notebook", isEqualTo: .string(notebook)) }
        return try await query.getDocuments().documents.compactMap(Self.word)
            .sorted { (NotesText.normalize($0.word), $0.createdAt) < (NotesText.normalize($1.word), $1.createdAt) }
    }

    /// Adds a word (trimmed) to a notebook.
    public func addWord(_ word: String, explanation: String, to notebook: String) async throws -> Word {
        if let problem = NotesText.wordProblem(word: word, explanation: explanation) { throw NotesError.word(problem) }
        let value = Word(
            id: "", notebook: notebook, word: NotesText.trimSpace(word),
            explanation: NotesText.trimSpace(explanation), createdAt: Self.now())
        let reference = try await wordsCollection().addDocument(data: [
            "notebook": .string(notebook), "word": .string(value.word), "explanation": .string(value.explanation),
            "createdAt": .string(value.createdAt),
        ])
        return Word(
            id: reference.documentID, notebook: notebook, word: value.word, explanation: value.explanation,
            createdAt: value.createdAt)
    }

    /// Changes a word and its explanation.
    public func editWord(_ id: String, word: String, explanation: String) async throws {
        if let problem = NotesText.wordProblem(word: word, explanation: explanation) { throw NotesError.word(problem) }
        let reference = try wordsCollection().document(id)
        guard try await reference.getDocument().exists else { throw NotesError.wordNotFound(id) }
        try await reference.updateData([
            "word": .string(NotesText.trimSpace(word)), "explanation": .string(NotesText.trimSpace(explanation)),
            "updatedAt": .string(Self.now()),
        ])
    }

    /// Deletes a word.
    public func deleteWord(_ id: String) async throws {
        let reference = try wordsCollection().document(id)
        guard try await reference.getDocument().exists else { throw NotesError.wordNotFound(id) }
        try await reference.delete()
    }

    /// Searches every notebook (or those in `notebooks`) for `text`, as the web app does (`NotesText.search`).
    public func search(_ text: String, in notebooks: [String] = []) async throws -> [Word] {
        let known = Set(try await self.notebooks().map(\.id))
        return NotesText.search(
            try await words().filter { known.contains($0.notebook) }, text: text, notebooks: notebooks)
    }

    private static func checkedName(_ text: String) throws -> String {
        switch NotesText.nameProblem(text) {
        case .blank: throw NotesError.blankName
        case .tooLong: throw NotesError.nameTooLong
        case nil: return NotesText.trimSpace(text)
        }
    }

    private static func word(_ document: QueryDocumentSnapshot) -> Word? {
        guard let notebook = document.fields["notebook"]?.stringValue, let word = document.fields["word"]?.stringValue
        else { return nil }
        return Word(
            id: document.documentID, notebook: notebook, word: word,
            explanation: document.fields["explanation"]?.stringValue ?? "",
            createdAt: document.fields["createdAt"]?.stringValue ?? "")
    }
}
