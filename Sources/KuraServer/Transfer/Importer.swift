import Foundation
import KuraAuth
import KuraCore
import KuraEngine
import KuraEngines
import KuraModel
import KuraRules
import KuraStore

#if canImport(Glibc)
    import Glibc
#endif

/// `kura import FILE`: the records of an export (docs/export-format.md) into the engine `store.engine` names.
///
/// Two passes over the file. The first checks every line (and, with `merge`, that no address belongs to another
/// account of the target) and writes nothing, so a bad line stops the import with nothing imported. The second
/// writes: the rules, the composite index definitions (built before the documents arrive, so each batch keeps
/// them), then accounts and documents in batches of at most 500, each batch one transaction. Should storage fail
/// during the second pass, the error says exactly how many records were stored.
///
/// The target must hold no documents and no accounts, unless `merge`: then records in the file replace those
/// with the same document path or uid (a replaced account loses its sessions), the rest of the target stays, and
/// the file's rules replace the target's. The data directory is locked for the import (no server may run on it).
enum Importer {
    static func importFile(
        configuration: KuraConfiguration, from path: String, merge: Bool, batchSize: Int, logger: Logger,
        interactive: Bool
    ) throws -> TransferSummary {
        guard (1...CommitLimits.maxWrites).contains(batchSize) else {
            throw TransferError("--batch must be between 1 and \(CommitLimits.maxWrites)")
        }
        guard path != "-" else {
            throw TransferError(
                "kura import reads a file, not standard input: it reads it twice (every line checked first, then "
                    + "written); save the export to a file")
        }
        let engine = try StoreEngines.engine(for: configuration)
        try CommandFilePaths.refuseInsideDataDirectory(
            path, dataDirectory: configuration.dataDirectory, role: "import file")
        // The header first: a file that is not an export is refused before anything is created.
        let reader = try TransferLineReader(path: path)
        let header = try readHeader(reader)
        // What the import creates in the data directory, removed again should it refuse the file: empty
        // databases left behind would make the directory look used (and `kura serve` refuse it for its missing
        // rules file).
        let created = CreatedFiles(dataDirectory: configuration.dataDirectory)
        try KuraNode.prepareDataDirectory(configuration.dataDirectory, logger: logger)
        let ownership = try DataDirectoryLock(dataDirectory: configuration.dataDirectory)
        defer { ownership.release() }
        do {
            return try importLocked(
                configuration: configuration, engine: engine, header: header, from: path, merge: merge,
                batchSize: batchSize, logger: logger, interactive: interactive)
        } catch let error as TransferError where error.exitCode == 2 {
            // Refused before anything was written (the databases are closed by now): what this import made goes,
            // while the directory is still locked.
            created.removeNew(lockFile: ownership.path, logger: logger)
            throw error
        }
    }

    /// The import once the data directory is locked; the databases it opens are closed when it returns.
    private static func importLocked(
        configuration: KuraConfiguration, engine: any NodeEngine, header: TransferHeader, from path: String,
        merge: Bool, batchSize: Int, logger: Logger, interactive: Bool
    ) throws -> TransferSummary {
        let database = try engine.openDocuments(log: { logger.info($0) })
        defer { database.close() }
        let accountStore = try engine.openAccounts()
        guard let documents = database as? any DocumentTransfer,
            let accounts = accountStore as? any AccountTransfer
        else {
            throw TransferError("the \(type(of: engine).name) engine cannot import documents and accounts")
        }
        let held = (
            documents: try documents.withDocumentSnapshot { try $0.documentCount() },
            accounts: try accounts.withAccountSnapshot { try $0.accountCount() }
        )
        if !merge && (held.documents > 0 || held.accounts > 0) {
            throw TransferError(
                "the target (\(engine.documentsLocation)) already holds \(held.documents) documents and "
                    + "\(held.accounts) accounts; import into an empty data directory or database, or pass --merge "
                    + "to add the file's records to them (replacing those with the same path or uid)")
        }
        logger.info(
            "import: \(path) (written by Kura \(header.kuraVersion) from \(header.engine)): \(header.documents) "
                + "documents, \(header.accounts) accounts, \(header.indexes) composite indexes into "
                + "\(type(of: engine).name) (\(engine.documentsLocation))\(merge ? ", merging" : "")")
        let bounds = configuration.auth.argon2Bounds
        let checked = try check(
            path, header: header, target: merge ? accountStore : nil, bounds: bounds, logger: logger,
            interactive: interactive)
        // On a shared engine the database holds the rules (docs/design/scaling.md, "What nodes tell each other").
        let shared = try engine.openCluster(log: { logger.info($0) }).shared
        return try write(
            path, header: header, checked: checked, merge: merge, batchSize: batchSize, bounds: bounds,
            into: (database, documents, accounts), shared: shared, dataDirectory: configuration.dataDirectory,
            logger: logger, interactive: interactive)
    }

    private static func readHeader(_ reader: TransferLineReader) throws -> TransferHeader {
        guard let line = try reader.next() else { throw TransferError("\(reader.path):1: the file is empty") }
        do { return try TransferLine.parseHeader(line) } catch let problem as TransferLineProblem {
            throw TransferError("\(reader.path):1: \(problem.message)")
        }
    }

    /// What the first pass found: the small records, kept for the second pass, and the counts.
    struct Checked {
        var rules: String?
        var indexes: [CompositeIndex] = []
        var summary = TransferSummary()
    }

    /// The first pass: every line parsed and checked, duplicates found, the counts held against the header.
    private static func check(
        _ path: String, header: TransferHeader, target: (any AccountStore)?, bounds: Argon2Bounds, logger: Logger,
        interactive: Bool
    ) throws -> Checked {
        let reader = try TransferLineReader(path: path)
        _ = try reader.next()
        let progress = TransferProgress(
            "import (checking)", total: header.total, logger: logger, interactive: interactive)
        var checked = Checked()
        var paths = Set<DocumentPath>()
        var uids = Set<String>()
        var emails: [String: String] = [:]
        var indexes = Set<CompositeIndex>()
        while let line = try reader.next() {
            func problem(_ message: String) -> TransferError {
                TransferError("\(path):\(reader.lineNumber): \(message)")
            }
            let record: TransferRecord
            do { record = try TransferLine.parseRecord(line, bounds: bounds) } catch let error as TransferLineProblem {
                throw problem(error.message)
            }
            switch record {
            case .rules(let source):
                guard checked.rules == nil else { throw problem("a second rules line (a file holds one at most)") }
                checked.rules = source
                checked.summary.rules = 1
            case .index(let index):
                guard indexes.insert(index).inserted else { throw problem("index \(index) is listed twice") }
                checked.indexes.append(index)
                checked.summary.indexes += 1
            case .account(let account):
                guard uids.insert(account.uid).inserted else { throw problem("account \(account.uid) is listed twice") }
                if let other = emails.updateValue(account.uid, forKey: account.emailKey) {
                    throw problem("\(account.email) is also the address of account \(other) in this file")
                }
                if let target, let owner = try target.account(emailKey: account.emailKey), owner.uid != account.uid {
                    throw problem("\(account.email) belongs to account \(owner.uid) of the target")
                }
                checked.summary.accounts += 1
            case .document(let document):
                guard paths.insert(document.path).inserted else {
                    throw problem("document \(document.path) is listed twice")
                }
                checked.summary.documents += 1
            }
            progress.advance()
        }
        let found = checked.summary
        for (name, announced, count) in [
            ("documents", header.documents, found.documents), ("accounts", header.accounts, found.accounts),
            ("composite indexes", header.indexes, found.indexes), ("rules lines", header.rules, found.rules),
        ] where announced != count {
            throw TransferError(
                "\(path): the header announces \(announced) \(name) but the file holds \(count) "
                    + "(was it cut short or edited?); nothing was imported")
        }
        progress.finish("checked \(reader.lineNumber) lines")
        return checked
    }

    /// The second pass: rules, indexes, then accounts and documents in batches.
    private static func write(
        _ path: String, header: TransferHeader, checked: Checked, merge: Bool, batchSize: Int, bounds: Argon2Bounds,
        into target: (
            database: any EngineDocumentStore, documents: any DocumentTransfer, accounts: any AccountTransfer
        ),
        shared: (any SharedNodeState)?, dataDirectory: String, logger: Logger, interactive: Bool
    ) throws -> TransferSummary {
        var stored = TransferSummary()
        let reader = try TransferLineReader(path: path)
        func partial(_ error: any Error) -> TransferError {
            TransferError(
                "import stopped at \(path):\(reader.lineNumber) after storing \(stored): \(error). The target holds "
                    + "exactly those records; empty it (a new data directory or database) and import again, or "
                    + "import again with --merge", exitCode: 1)
        }
        let rulesPath = (dataDirectory as NSString).appendingPathComponent(SecurityRules.fileName)
        do {
            if let rules = checked.rules {
                // Published as a new version on a shared engine (running nodes switch to it within a second), and
                // written to this data directory's file either way.
                if let shared { _ = try shared.publishRules(rules) }
                try SecurityRules.writeAtomically(rules, to: rulesPath)
                stored.rules = 1
            } else if !FileManager.default.fileExists(atPath: rulesPath) {
                // A data directory with documents and no rules file does not start (SecurityRules).
                try SecurityRules.writeAtomically(RuleSet.defaultSource, to: rulesPath)
                logger.warn("import: the file has no rules; wrote the default rules to \(rulesPath)")
            }
            let existing = Set(target.database.compositeIndexes.map(\.index))
            for index in checked.indexes {
                if !existing.contains(index) { try target.database.createIndex(index) }
                stored.indexes += 1
            }
            target.database.waitForIndexJobs()
        } catch {
            throw partial(error)
        }
        let progress = TransferProgress("import", total: header.total, logger: logger, interactive: interactive)
        progress.advance(by: stored.rules + stored.indexes)
        var accounts: [AccountRecord] = []
        var documents: [Document] = []
        func flushAccounts() throws {
            guard !accounts.isEmpty else { return }
            try target.accounts.importAccounts(accounts, replacing: merge)
            stored.accounts += Int64(accounts.count)
            progress.advance(by: Int64(accounts.count))
            accounts.removeAll(keepingCapacity: true)
        }
        func flushDocuments() throws {
            guard !documents.isEmpty else { return }
            try target.documents.importDocuments(documents, replacing: merge)
            stored.documents += Int64(documents.count)
            progress.advance(by: Int64(documents.count))
            documents.removeAll(keepingCapacity: true)
        }
        do {
            _ = try reader.next()
            while let line = try reader.next() {
                switch try TransferLine.parseRecord(line, bounds: bounds) {
                case .rules, .index: continue
                case .account(let account):
                    accounts.append(account)
                    if accounts.count == batchSize { try flushAccounts() }
                case .document(let document):
                    documents.append(document)
                    if documents.count == batchSize { try flushDocuments() }
                }
            }
            try flushAccounts()
            try flushDocuments()
        } catch {
            throw partial(error)
        }
        progress.finish("imported \(stored)")
        return stored
    }
}

extension KuraNode {
    /// `kura import FILE`: see `Importer`. `batchSize`: records per transaction (1–500). `interactive`: rewrite a
    /// progress line on stderr (default: when stderr is a terminal).
    @discardableResult
    public static func importFile(
        configuration: KuraConfiguration, from file: String, merge: Bool = false, batchSize: Int = 500,
        logger: Logger? = nil, interactive: Bool? = nil
    ) throws -> TransferSummary {
        try Importer.importFile(
            configuration: configuration, from: file, merge: merge, batchSize: batchSize,
            logger: logger ?? Logger(level: configuration.logLevel), interactive: interactive ?? (isatty(2) == 1))
    }
}
