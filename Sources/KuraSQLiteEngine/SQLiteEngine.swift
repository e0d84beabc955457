import Foundation
import KuraSQLite
import KuraStore

/// The embedded engine (`store.engine = sqlite`, the default): everything in SQLite files in the data directory,
/// one process per directory. The document database is `<data>/documents.db` (`SQLiteDocumentStore`).
public struct SQLiteEngine: StoreEngine {
    public static let name = "sqlite"

    /// The settings the engine was made with.
    public let configuration: StoreConfiguration
    /// The directory holding the database files.
    public let dataDirectory: String

    public init(configuration: StoreConfiguration, dataDirectory: String) {
        self.configuration = configuration
        self.dataDirectory = dataDirectory
    }

    /// The document database file: `<data>/documents.db`.
    public var documentsPath: String { (dataDirectory as NSString).appendingPathComponent("documents.db") }

    public var documentsLocation: String { documentsPath }

    public func holdsDocuments() -> Bool { FileManager.default.fileExists(atPath: documentsPath) }

    public func openDocuments(log: (@Sendable (String) -> Void)?) throws -> any EngineDocumentStore {
        try SQLiteDocumentStore(
            .init(
                path: documentsPath, changeRetention: configuration.changeRetentionSeconds * 1_000_000,
                maxScanRows: configuration.maxScanRows > 0 ? configuration.maxScanRows : nil,
                autoCreateIndexes: configuration.autoCreateIndexes,
                checkpointPages: configuration.sqlite.checkpointPages, maxWALBytes: configuration.sqlite.maxWALBytes,
                mmapBytes: configuration.sqlite.mmapBytes,
                indexBuildStepSeconds: Double(configuration.indexBuildStepMilliseconds) / 1000, log: log))
    }

    /// From now on this process's connections leave `-wal` and `-shm` files in place when they close (see
    /// `SQLiteConnection.keepsWALFiles`): for commands that run beside a server.
    public static func keepWALFiles() {
        SQLiteConnection.keepsWALFiles.store(true, ordering: .relaxed)
    }

    public func backupDocuments(to file: String) throws {
        try SQLiteDocumentStore.backup(databaseAt: documentsPath, to: file)
    }
}

extension SQLiteDocumentStore: EngineDocumentStore {}
