import Foundation
import KuraCore
import KuraMail
import KuraModel
import KuraPostgresEngine
import KuraRules
import KuraSQLiteEngine
import KuraStore

/// The checks on what the directory or database holds: integrity, schema, indexes, outbox, clock, rules, SMTP.
extension Doctor {
    /// A clock this far ahead of the newest change (or off from the database server's) is reported.
    static let clockTolerance: Int64 = 2_000_000

    static func checkSQLite(_ data: String, full: Bool, into findings: inout [DoctorFinding]) {
        let path = { (name: String) in (data as NSString).appendingPathComponent(name) }
        let documents = path("documents.db")
        guard FileManager.default.fileExists(atPath: documents) else {
            findings.append(
                DoctorFinding("integrity", .ok, "no documents.db yet: a new data directory (nothing stored)"))
            return
        }
        var sound = Set<String>()
        for name in DataDirectoryBackup.databases {
            guard FileManager.default.fileExists(atPath: path(name)) else {
                findings.append(
                    DoctorFinding(
                        "integrity", .warn, "\(name) is missing beside documents.db",
                        fix: "restore it from a backup (kura backup copies it); a server starts a new, empty one"))
                continue
            }
            do {
                let problems = try SQLiteInspection.check(databaseAt: path(name), full: full)
                if problems == ["ok"] {
                    sound.insert(name)
                    findings.append(
                        DoctorFinding("integrity", .ok, "\(name): \(full ? "integrity_check" : "quick_check") ok"))
                } else {
                    findings.append(
                        DoctorFinding(
                            "integrity", .fail, "\(name) is damaged: \(problems.prefix(3).joined(separator: "; "))",
                            fix: "stop the server and restore the last backup (kura backup); sqlite3 \(path(name)) "
                                + "'.recover' salvages what is left"))
                }
            } catch {
                findings.append(
                    DoctorFinding(
                        "integrity", .fail, "\(name) does not open as a database: \(error)",
                        fix: "stop the server and restore the last backup (kura backup)"))
            }
        }
        guard sound.contains("documents.db") else { return }
        do {
            checkIndexes(
                try SQLiteInspection.compositeIndexes(databaseAt: documents).map {
                    ($0.definition, $0.state, $0.scanned, $0.message)
                }, into: &findings)
            checkClock(
                newestChange: try SQLiteInspection.newestChangeTime(databaseAt: documents), serverTime: nil,
                into: &findings)
        } catch {
            findings.append(DoctorFinding("indexes", .fail, "cannot read documents.db: \(error)"))
        }
        if sound.contains(SQLiteOutboxStore.fileName) {
            do {
                checkOutbox(
                    try SQLiteInspection.outboxCounts(databaseAt: path(SQLiteOutboxStore.fileName)), into: &findings)
            } catch {
                findings.append(DoctorFinding("outbox", .fail, "cannot read mail.db: \(error)"))
            }
        }
    }

    static func checkPostgres(_ configuration: KuraConfiguration, into findings: inout [DoctorFinding]) {
        let location = PostgresDatabase.redacted(configuration.store.postgres.url)
        guard !configuration.store.postgres.url.isEmpty else {
            findings.append(
                DoctorFinding(
                    "database", .fail, "store.engine is postgres but store.url is not set",
                    fix: "set store.url (KURA_STORE_URL) to the database's connection string"))
            return
        }
        let inspection: PostgresInspection
        do {
            inspection = try PostgresDatabase(configuration.store.postgres).inspect()
        } catch {
            findings.append(
                DoctorFinding(
                    "database", .fail, "cannot reach \(location): \(error)",
                    fix: "check store.url, that PostgreSQL runs and accepts this host, and the role's password"))
            return
        }
        findings.append(DoctorFinding("database", .ok, "connected to \(location)"))
        if !inspection.unknownVersions.isEmpty {
            findings.append(
                DoctorFinding(
                    "schema", .fail,
                    "the database has schema versions \(inspection.unknownVersions.map(String.init).joined(separator: ", ")) "
                        + "that this build (\(KuraNode.version)) does not know: a newer Kura migrated it",
                    fix: "run the Kura version that migrated it (or newer)"))
        } else if inspection.appliedVersions.isEmpty {
            findings.append(
                DoctorFinding(
                    "schema", .warn, "the database holds no Kura tables yet",
                    fix: "kura serve creates them at its first start; check store.url names the right database"))
        } else if !inspection.pendingVersions.isEmpty {
            findings.append(
                DoctorFinding(
                    "schema", .warn,
                    "\(inspection.pendingVersions.count) schema steps of this build are not applied yet",
                    fix:
                        "the next kura serve of this build applies them (docs/scaling.md, \"Differences from one node, and limits\")"
                ))
        } else {
            findings.append(
                DoctorFinding(
                    "schema", .ok, "schema version \(inspection.appliedVersions.max() ?? 0) matches this build"))
        }
        checkIndexes(inspection.compositeIndexes, into: &findings)
        checkOutbox(inspection.outboxCounts, into: &findings)
        checkClock(newestChange: inspection.newestChangeTime, serverTime: inspection.serverTime, into: &findings)
    }

    static func checkIndexes(
        _ indexes: [(definition: String, state: String, scanned: Int64, message: String?)],
        into findings: inout [DoctorFinding]
    ) {
        let failed = indexes.filter { $0.state == "ERROR" }
        let building = indexes.filter { $0.state == "CREATING" }
        for index in failed {
            findings.append(
                DoctorFinding(
                    "indexes", .fail, "the index \(index.definition) failed: \(index.message ?? "no reason recorded")",
                    fix: "delete it (console, or DELETE /api/admin/indexes/{id}) and declare it again"))
        }
        for index in building {
            findings.append(
                DoctorFinding(
                    "indexes", .warn,
                    "the index \(index.definition) is still building (\(index.scanned) documents scanned)",
                    fix: "a running server finishes it; queries that need it fail with FAILED_PRECONDITION meanwhile"))
        }
        if failed.isEmpty && building.isEmpty {
            findings.append(
                DoctorFinding(
                    "indexes", .ok,
                    indexes.isEmpty ? "no composite indexes declared" : "\(indexes.count) composite indexes, all ready")
            )
        }
    }

    static func checkOutbox(_ counts: [String: Int], into findings: inout [DoctorFinding]) {
        let failed = counts[OutboxStatus.failed.rawValue] ?? 0
        let pending = counts[OutboxStatus.pending.rawValue] ?? 0
        let held = counts[OutboxStatus.held.rawValue] ?? 0
        let summary = "\(pending) pending, \(held) held, \(failed) failed"
        if failed > 0 {
            findings.append(
                DoctorFinding(
                    "outbox", .warn, "\(failed) mails failed for good (\(summary))",
                    fix: "see why in the console's Outbox (GET /api/admin/outbox?status=failed); check the SMTP relay"))
        } else {
            findings.append(DoctorFinding("outbox", .ok, summary))
        }
    }

    /// On SQLite, the newest change-log time against this machine's clock (a clock that went back); on
    /// PostgreSQL, this machine's clock against the database server's.
    static func checkClock(newestChange: Int64?, serverTime: Int64?, into findings: inout [DoctorFinding]) {
        let now = WallClock.nowMicros()
        if let serverTime, abs(serverTime - now) > clockTolerance {
            findings.append(
                DoctorFinding(
                    "clock", .warn,
                    "this machine's clock is \(String(format: "%.1f", Double(now - serverTime) / 1e6)) s off the "
                        + "database server's",
                    fix: "synchronise the clocks (NTP): document times follow each node's clock"))
        } else if let newestChange, newestChange - now > clockTolerance {
            findings.append(
                DoctorFinding(
                    "clock", .warn,
                    "the newest change (\(RFC3339.format(newestChange))) is "
                        + "\(String(format: "%.1f", Double(newestChange - now) / 1e6)) s in the future: the clock went back",
                    fix: "synchronise the clock (NTP); update times stay at the newest change's until it catches up"))
        } else {
            findings.append(
                DoctorFinding(
                    "clock", .ok,
                    "\(RFC3339.format(now))"
                        + (serverTime != nil ? ", agrees with the database server's" : "")
                        + (newestChange.map { ", after the newest change (\(RFC3339.format($0)))" } ?? "")))
        }
    }

    /// The rules file compiles with the server's compiler (a failure names line and column).
    static func checkRules(_ data: String, newDirectory: Bool, into findings: inout [DoctorFinding]) {
        let path = (data as NSString).appendingPathComponent(SecurityRules.fileName)
        guard let source = try? String(contentsOfFile: path, encoding: .utf8) else {
            if FileManager.default.fileExists(atPath: path) {
                findings.append(
                    DoctorFinding(
                        "rules", .fail, "\(path) cannot be read as UTF-8 text", fix: "rewrite it as UTF-8 text"))
            } else if newDirectory {
                findings.append(
                    DoctorFinding("rules", .ok, "no kura.rules yet: the default rules are written at the first start"))
            } else {
                findings.append(
                    DoctorFinding(
                        "rules", .fail, "\(path) is missing beside stored data: the server refuses to start",
                        fix: "restore kura.rules from the backup, or write the rules (docs/rules.md)"))
            }
            return
        }
        do {
            _ = try RuleSet.compile(source: source, fileName: path)
            let lines = source.split(separator: "\n", omittingEmptySubsequences: false).count
            findings.append(DoctorFinding("rules", .ok, "kura.rules compiles (\(lines) lines)"))
        } catch {
            findings.append(
                DoctorFinding(
                    "rules", .fail, "\(error)",
                    fix: "correct kura.rules there; a running server keeps the rules in force until it compiles, a "
                        + "starting one refuses"))
        }
        let indexes = (data as NSString).appendingPathComponent(IndexDefinitions.fileName)
        if let bytes = FileManager.default.contents(atPath: indexes) {
            do {
                _ = try CompositeIndex.parseFile(Array(bytes))
            } catch {
                findings.append(
                    DoctorFinding(
                        "rules", .fail, "\(indexes): \(error)",
                        fix: "correct the file (Firebase's firestore.indexes.json shape; docs/api.md)"))
            }
        }
    }

    /// The relay answers EHLO (and AUTH) within 5 seconds, when `smtp.url` is set.
    static func checkSMTP(_ configuration: KuraConfiguration, into findings: inout [DoctorFinding]) {
        guard var smtp = configuration.mail.smtp, !smtp.url.isEmpty else {
            findings.append(
                DoctorFinding("smtp", .ok, "smtp.url is not set: mails are held in the outbox, none are sent"))
            return
        }
        smtp.connectTimeout = min(smtp.connectTimeout, .seconds(5))
        smtp.timeout = min(smtp.timeout, .seconds(5))
        let location = Self.redactedSMTP(smtp.url)
        do {
            try smtp.probe()
            findings.append(DoctorFinding("smtp", .ok, "\(location) answers (EHLO, NOOP)"))
        } catch {
            findings.append(
                DoctorFinding(
                    "smtp", .fail, "\(location): \(error)",
                    fix: "check smtp.url (host and port), that the relay runs and this host may reach it, and "
                        + "smtp.username/smtp.password; mails wait in the outbox meanwhile"))
        }
    }

    /// `smtp.url` without a password it may hold.
    static func redactedSMTP(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url.range(of: "@", range: scheme.upperBound..<url.endIndex)
        else { return url }
        return String(url[..<scheme.upperBound]) + "…@" + String(url[at.upperBound...])
    }
}
