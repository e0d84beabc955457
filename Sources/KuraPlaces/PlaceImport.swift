import KuraClient

/// Writes places into Kura so that running it again changes nothing: each place's document ID comes from its
/// GeoNames row, the collection is read first, and only documents that are missing or differ are written
/// (`set`, in commits of `batchSize`). Documents of places no longer in the file are left alone.
public struct PlaceImport: Sendable {
    public let kura: Kura
    /// Writes per commit (Kura takes at most 500).
    public var batchSize = 500
    /// Commits in flight at once.
    public var parallelCommits = 2

    public init(kura: Kura) { self.kura = kura }

    /// How far an import has got.
    public struct Progress: Sendable, Equatable {
        public var total = 0
        /// Places checked against the collection so far.
        public var checked = 0
        public var written = 0
        public var unchanged = 0
        /// Documents already in the collection when the import started.
        public var existing = 0
    }

    /// Imports `places`, calling `report` after reading the collection and after every commit.
    @discardableResult
    public func run(_ places: [Place], report: @Sendable (Progress) -> Void = { _ in }) async throws -> Progress {
        var progress = Progress(total: places.count)
        let existing = try await existingDocuments()
        progress.existing = existing.count
        report(progress)
        var pending: [Place] = []
        for place in places {
            if existing[place.id] == place.fields { progress.unchanged += 1 } else { pending.append(place) }
        }
        progress.checked = progress.unchanged
        report(progress)
        let chunks = stride(from: 0, to: pending.count, by: batchSize).map {
            Array(pending[$0..<min($0 + batchSize, pending.count)])
        }
        var next = 0
        while next < chunks.count {
            let group = chunks[next..<min(next + parallelCommits, chunks.count)]
            try await withThrowingTaskGroup(of: Int.self) { tasks in
                for chunk in group {
                    tasks.addTask { [kura] in
                        let batch = kura.batch()
                        for place in chunk {
                            batch.setData(
                                place.fields, forDocument: kura.collection(Place.collection).document(place.id))
                        }
                        try await batch.commit()
                        return chunk.count
                    }
                }
                for try await count in tasks {
                    progress.written += count
                    progress.checked += count
                    report(progress)
                }
            }
            next += group.count
        }
        return progress
    }

    /// Every document of the collection, by ID, read in pages in ID order.
    func existingDocuments() async throws -> [String: DocumentData] {
        var documents: [String: DocumentData] = [:]
        var query = kura.collection(Place.collection).order(by: "id").limit(to: 1000)
        while true {
            let page = try await query.getDocuments()
            for document in page.documents { documents[document.documentID] = document.fields }
            guard page.count == 1000, let last = page.documents.last else { return documents }
            query = kura.collection(Place.collection).order(by: "id").limit(to: 1000)
                .start(after: [.string(last.documentID)])
        }
    }
}
