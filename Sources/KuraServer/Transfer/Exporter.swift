import Foundation
import KuraAuth
import KuraCore
import KuraEngines
import KuraModel
import KuraStore

/// How many records an export or import moved.
public struct TransferSummary: Sendable, Equatable, CustomStringConvertible {
    public var documents: Int64 = 0
    public var accounts: Int64 = 0
    public var indexes: Int64 = 0
    public var rules: Int64 = 0

    public var description: String {
        "\(documents) documents, \(accounts) accounts, \(indexes) composite indexes, "
            + (rules == 1 ? "the security rules" : "no security rules")
    }
}

/// `kura export FILE`: every document, composite index definition, account (with its password hash) and the
/// security rules, as NDJSON (docs/export-format.md), read through the engine `store.engine` names.
///
/// Consistency: the documents come from one snapshot of the document database and the accounts from one snapshot
/// of the account database, both taken when the export starts, so writes made while it runs (a server may be
/// serving) are not in the file. The two snapshots are taken one after the other, not atomically together, and the
/// rules and index definitions are read at the start too.
enum Exporter {
    /// Documents and accounts read per page.
    static let pageSize = 500

    static func export(
        configuration: KuraConfiguration, to file: String, logger: Logger, interactive: Bool? = nil
    ) throws -> TransferSummary {
        let engine = try StoreEngines.engine(for: configuration)
        try CommandFilePaths.refuseInsideDataDirectory(
            file, dataDirectory: configuration.dataDirectory, role: "export file")
        // No document database yet (accounts made with `kura admin create-user` only): none to export, and opening
        // one would create it, after which the directory no longer counts as new (SecurityRules).
        let holdsDocuments = try engine.holdsDocuments()
        guard holdsDocuments || FileManager.default.fileExists(atPath: configuration.dataDirectory) else {
            throw TransferError(
                "nothing to export: \(engine.documentsLocation) holds no documents and there is no data directory "
                    + configuration.dataDirectory)
        }
        let database = holdsDocuments ? try engine.openDocuments(log: { logger.info($0) }) : nil
        defer { database?.close() }
        let documents: any DocumentTransfer
        if let database {
            guard let transfer = database as? any DocumentTransfer else {
                throw TransferError("the \(type(of: engine).name) engine cannot list its documents for an export")
            }
            documents = transfer
        } else {
            documents = NoDocuments()
        }
        guard let accounts = try engine.openAccounts() as? any AccountTransfer else {
            throw TransferError("the \(type(of: engine).name) engine cannot list its accounts for an export")
        }
        // The rules in force: on a shared engine the newest version in the database, else the data directory's file.
        let rulesPath = (configuration.dataDirectory as NSString).appendingPathComponent(SecurityRules.fileName)
        let rules =
            try engine.openCluster(log: { logger.info($0) }).shared?.latestRules()?.source
            ?? FileManager.default.contents(atPath: rulesPath).map { String(decoding: $0, as: UTF8.self) }
        // Sorted by their JSON, so the same definitions give the same lines whatever order they were declared in.
        let indexes = (database?.compositeIndexes ?? []).map(\.index).map { ($0, $0.json.jsonBytes) }
            .sorted { $0.1.lexicographicallyPrecedes($1.1) }.map(\.0)
        let output = try TransferLineWriter(path: file)
        let summary = try accounts.withAccountSnapshot { accountSnapshot in
            try documents.withDocumentSnapshot { documentSnapshot in
                let header = TransferHeader(
                    kuraVersion: KuraNode.version, engine: type(of: engine).name, time: WallClock.nowMicros(),
                    documents: try documentSnapshot.documentCount(), accounts: try accountSnapshot.accountCount(),
                    indexes: Int64(indexes.count), rules: rules == nil ? 0 : 1)
                logger.info(
                    "export: \(header.documents) documents, \(header.accounts) accounts, \(header.indexes) composite "
                        + "indexes from \(type(of: engine).name) (\(engine.documentsLocation)) to "
                        + (file == "-" ? "standard output" : file))
                let progress = TransferProgress(
                    "export", total: header.total, logger: logger, interactive: interactive ?? (isatty(2) == 1))
                try output.write(TransferLine.header(header))
                var summary = TransferSummary()
                if let rules {
                    try output.write(TransferLine.record(.rules(rules)))
                    summary.rules = 1
                    progress.advance()
                }
                for index in indexes {
                    try output.write(TransferLine.record(.index(index)))
                    summary.indexes += 1
                    progress.advance()
                }
                var afterUID: String?
                while case let page = try accountSnapshot.accounts(afterUID: afterUID, limit: pageSize), !page.isEmpty {
                    for account in page { try output.write(TransferLine.record(.account(account))) }
                    summary.accounts += Int64(page.count)
                    progress.advance(by: Int64(page.count))
                    afterUID = page.last?.uid
                }
                var position: DocumentPath?
                while case let page = try documentSnapshot.documents(after: position, limit: pageSize), !page.isEmpty {
                    for document in page { try output.write(TransferLine.record(.document(document))) }
                    summary.documents += Int64(page.count)
                    progress.advance(by: Int64(page.count))
                    position = page.last?.path
                }
                try output.finish()
                progress.finish("exported \(summary)")
                return summary
            }
        }
        return summary
    }
}

/// The documents of an engine that has no document database yet.
private struct NoDocuments: DocumentTransfer, DocumentSnapshot {
    func withDocumentSnapshot<T>(_ body: (any DocumentSnapshot) throws -> T) throws -> T { try body(self) }
    func importDocuments(_ documents: [Document], replacing: Bool) throws {
        throw TransferError("there is no document database to import into")
    }
    func documentCount() -> Int64 { 0 }
    func documents(after position: DocumentPath?, limit: Int) -> [Document] { [] }
}

extension KuraNode {
    /// `kura export FILE` (`-`: standard output): see `Exporter`. Safe while a server is running on the same data
    /// (it takes no lock). `interactive`: rewrite a progress line on stderr (default: when stderr is a terminal).
    @discardableResult
    public static func export(
        configuration: KuraConfiguration, to file: String, logger: Logger? = nil, interactive: Bool? = nil
    ) throws -> TransferSummary {
        try Exporter.export(
            configuration: configuration, to: file, logger: logger ?? Logger(level: configuration.logLevel),
            interactive: interactive)
    }
}
