import Foundation
internal import KuraModel

/// Firestore's shapes for documents, beside the typed `async` calls: writes that take `[String: Any]` (variables
/// of plain Swift types, nested dictionaries, `Date`/`Timestamp`; a value JSON cannot hold throws
/// `.invalidArgument`), and completion-handler forms that run on `Kura.Settings.dispatchQueue` (the main queue by
/// default). Without a completion handler, a write is sent in the background and its outcome is not reported.
extension DocumentReference {
    var callbackQueue: DispatchQueue { kura.settings.dispatchQueue }

    // MARK: [String: Any] writes

    /// `setData(_:merge:)` for Firebase-style data (`[String: Any]`).
    @_disfavoredOverload
    public func setData(_ data: [String: Any], merge: Bool = false) async throws {
        try await setData(try DocumentData(bridging: data), merge: merge)
    }

    /// `updateData(_:)` for Firebase-style fields (`[String: Any]`, keys are dotted field paths).
    @_disfavoredOverload
    public func updateData(_ fields: [String: Any]) async throws {
        try await updateData(try DocumentData(bridging: fields))
    }

    // MARK: Completion handlers

    /// Reads the document and calls `completion` with it (`exists` is `false` when there is none) or the error.
    public func getDocument(source: Source = .default, completion: @escaping (DocumentSnapshot?, Error?) -> Void) {
        runThenCall(on: callbackQueue, valueOrError(completion)) { try await self.getDocument(source: source) }
    }

    /// Creates or replaces the document (with `merge`, deep-merges into it), then calls `completion`.
    public func setData(_ data: DocumentData, merge: Bool = false, completion: ((Error?) -> Void)? = nil) {
        runThenCall(on: callbackQueue, errorOnly(completion)) { try await self.setData(data, merge: merge) }
    }

    /// `setData(_:merge:completion:)` for Firebase-style data (`[String: Any]`).
    @_disfavoredOverload
    public func setData(_ data: [String: Any], merge: Bool = false, completion: ((Error?) -> Void)? = nil) {
        let converted = Result { try DocumentData(bridging: data) }
        runThenCall(on: callbackQueue, errorOnly(completion)) {
            try await self.setData(try converted.get(), merge: merge)
        }
    }

    /// Sets the named fields, then calls `completion` (`.notFound` when the document does not exist).
    public func updateData(_ fields: DocumentData, completion: ((Error?) -> Void)? = nil) {
        runThenCall(on: callbackQueue, errorOnly(completion)) { try await self.updateData(fields) }
    }

    /// `updateData(_:completion:)` for Firebase-style fields (`[String: Any]`).
    @_disfavoredOverload
    public func updateData(_ fields: [String: Any], completion: ((Error?) -> Void)? = nil) {
        let converted = Result { try DocumentData(bridging: fields) }
        runThenCall(on: callbackQueue, errorOnly(completion)) { try await self.updateData(try converted.get()) }
    }

    /// Deletes the document (not its subcollections), then calls `completion`.
    public func delete(completion: ((Error?) -> Void)? = nil) {
        runThenCall(on: callbackQueue, errorOnly(completion)) { try await self.delete() }
    }
}

extension CollectionReference {
    /// `addDocument(data:)` for Firebase-style data (`[String: Any]`).
    @_disfavoredOverload
    @discardableResult
    public func addDocument(data: [String: Any]) async throws -> DocumentReference {
        try await addDocument(data: try DocumentData(bridging: data))
    }

    /// Firebase's synchronous `addDocument(data:completion:)`: returns the new document's reference at once and
    /// creates it in the background, then calls `completion`.
    @discardableResult
    public func addDocument(data: DocumentData, completion: ((Error?) -> Void)? = nil) -> DocumentReference {
        add(Result.success(data), completion: completion)
    }

    /// `addDocument(data:completion:)` for Firebase-style data (`[String: Any]`).
    @_disfavoredOverload
    @discardableResult
    public func addDocument(data: [String: Any], completion: ((Error?) -> Void)? = nil) -> DocumentReference {
        add(Result { try DocumentData(bridging: data) }, completion: completion)
    }

    private func add(_ data: Result<DocumentData, any Error>, completion: ((Error?) -> Void)?) -> DocumentReference {
        let reference = document()
        runThenCall(on: kura.settings.dispatchQueue, errorOnly(completion)) {
            try ResourcePath.validate(self.segments, document: false)
            try await self.kura.commit([try Write.create(reference.path, try data.get())])
        }
        return reference
    }
}

extension Queryable {
    /// Runs the query and calls `completion` with the result or the error.
    public func getDocuments(source: Source = .default, completion: @escaping (QuerySnapshot?, Error?) -> Void) {
        let query = self.query
        runThenCall(on: query.kura.settings.dispatchQueue, valueOrError(completion)) {
            try await query.getDocuments(source: source)
        }
    }
}

extension WriteBatch {
    /// `setData(_:forDocument:merge:)` for Firebase-style data (`[String: Any]`); a value JSON cannot hold makes
    /// `commit()` throw.
    @_disfavoredOverload
    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference, merge: Bool = false)
        -> WriteBatch
    {
        setData(data: Result { try DocumentData(bridging: data) }, forDocument: document, merge: merge)
    }

    /// `updateData(_:forDocument:)` for Firebase-style fields (`[String: Any]`).
    @_disfavoredOverload
    @discardableResult
    public func updateData(_ fields: [String: Any], forDocument document: DocumentReference) -> WriteBatch {
        updateData(fields: Result { try DocumentData(bridging: fields) }, forDocument: document)
    }

    /// Commits, then calls `completion` on the callback queue.
    public func commit(completion: ((Error?) -> Void)?) {
        runThenCall(on: kura.settings.dispatchQueue, errorOnly(completion)) { try await self.commit() }
    }
}

extension Transaction {
    /// `setData(_:forDocument:merge:)` for Firebase-style data (`[String: Any]`).
    @_disfavoredOverload
    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference, merge: Bool = false) throws
        -> Transaction
    {
        try setData(try DocumentData(bridging: data), forDocument: document, merge: merge)
    }

    /// `updateData(_:forDocument:)` for Firebase-style fields (`[String: Any]`).
    @_disfavoredOverload
    @discardableResult
    public func updateData(_ fields: [String: Any], forDocument document: DocumentReference) throws -> Transaction {
        try updateData(try DocumentData(bridging: fields), forDocument: document)
    }
}
