import Foundation
import KuraCore
import KuraModel
import KuraStore
import Synchronization

/// `<data>/kura.indexes.json`: composite indexes declared in Firebase's `firestore.indexes.json` shape (a Firebase
/// project's file works as it is). Read at startup and, like `kura.rules`, again whenever it changes; every index
/// it lists that the store does not have is created (built in the background). Indexes the file no longer lists
/// are kept (drop them with `DELETE /api/admin/indexes/{id}`), as `firebase deploy` keeps them without `--force`.
public final class IndexDefinitions: Sendable {
    /// The file name in the data directory.
    public static let fileName = "kura.indexes.json"

    /// `<data>/kura.indexes.json`.
    public let path: String
    private let store: any CompositeIndexing
    private let logger: Logger
    private let signature = Mutex<FileSignature?>(nil)

    /// Loads the file (if there is one) and creates the indexes it declares. Throws a `ConfigurationError` when
    /// the file is not a valid index file.
    init(dataDirectory: String, store: any CompositeIndexing, logger: Logger) throws {
        path = (dataDirectory as NSString).appendingPathComponent(Self.fileName)
        self.store = store
        self.logger = logger
        do {
            try load()
        } catch {
            guard let error = APIError(answering: error) else { throw error }
            throw ConfigurationError("\(path): \(error.message)")
        }
    }

    /// Creates what the file declares when it changed since the last look; a broken file is logged (once) and
    /// changes nothing.
    public func reloadIfChanged() {
        do { try load() } catch {
            if let error = APIError(answering: error) {
                return logger.error("\(path): \(error.message); its indexes are unchanged")
            }
            logger.error("\(path): \(error); its indexes are unchanged")
        }
    }

    private func load() throws {
        let current = FileSignature(path: path)
        let changed = signature.withLock { known in
            guard known != current else { return false }
            known = current
            return true
        }
        guard changed, current != nil, let data = FileManager.default.contents(atPath: path) else { return }
        let indexes = try CompositeIndex.parseFile(Array(data))
        let existing = Set(store.compositeIndexes.map(\.index))
        for index in indexes where !existing.contains(index) {
            let status = try store.createIndex(index)
            logger.info("\(Self.fileName): index \(status.id) \(index) declared, \(status.state.rawValue)")
        }
    }
}
