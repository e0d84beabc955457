import Foundation
import KuraCore
import KuraEngines
import KuraModel
import KuraPostgresEngine
import KuraSQLiteEngine

/// One line of `kura doctor`: a check, how it went, and what to do about it.
public struct DoctorFinding: Sendable, Equatable {
    /// How a check went, in increasing severity; the exit code is the worst one's raw value.
    public enum Status: Int, Sendable, Comparable {
        case ok = 0
        case warn = 1
        case fail = 2

        public static func < (a: Status, b: Status) -> Bool { a.rawValue < b.rawValue }

        /// `OK`, `WARN`, `FAIL`.
        public var label: String {
            switch self {
            case .ok: "OK"
            case .warn: "WARN"
            case .fail: "FAIL"
            }
        }
    }

    /// The check's short name (`directory`, `integrity`, `rules`…).
    public var check: String
    public var status: Status
    /// What was found.
    public var message: String
    /// What to do, for `warn` and `fail`.
    public var fix: String?

    public init(_ check: String, _ status: Status, _ message: String, fix: String? = nil) {
        self.check = check
        self.status = status
        self.message = message
        self.fix = fix
    }
}

/// `kura doctor`: checks a data directory (SQLite) or the database (PostgreSQL) and the settings a server would
/// run with, reading only (safe beside a running server: databases are opened read-only through SQLite).
public enum Doctor {
    /// Every check for `configuration`, in a fixed order. `full`: `PRAGMA integrity_check` (also compares every
    /// index with its table; slower) instead of `quick_check`.
    public static func run(configuration: KuraConfiguration, full: Bool = false) -> [DoctorFinding] {
        let data = configuration.dataDirectory
        var findings: [DoctorFinding] = []
        let sqlite = configuration.store.engine == SQLiteEngine.name
        let directoryFound = checkDirectory(data, required: sqlite, into: &findings)
        if directoryFound {
            checkPermissions(data, into: &findings)
            checkLock(data, into: &findings)
        }
        if sqlite {
            if directoryFound { checkSQLite(data, full: full, into: &findings) }
        } else if configuration.store.engine == PostgresEngine.name {
            checkPostgres(configuration, into: &findings)
        } else if StoreEngines.engine(named: configuration.store.engine) != nil {
            findings.append(
                DoctorFinding(
                    "engine", .warn, "kura doctor has no database checks for the \(configuration.store.engine) engine",
                    fix: "check the database with the engine's own tools"))
        } else {
            findings.append(
                DoctorFinding(
                    "engine", .fail, "store.engine is '\(configuration.store.engine)', which this build does not know",
                    fix: "set store.engine to sqlite or postgres"))
        }
        if directoryFound { checkRules(data, newDirectory: sqlite && !hasDocuments(data), into: &findings) }
        checkSMTP(configuration, into: &findings)
        if directoryFound { checkDisk(data, into: &findings) }
        return findings
    }

    /// 0 when every check is OK, 1 when the worst is a warning, 2 when one failed.
    public static func exitCode(_ findings: [DoctorFinding]) -> Int32 {
        Int32(findings.map(\.status).max()?.rawValue ?? 0)
    }

    /// The findings as lines (`OK   check  message`, then `     fix: …`) and a summary line; or, with `json`, one
    /// object `{"status": "ok|warn|fail", "checks": [{"check", "status", "message", "fix"}]}`.
    public static func report(_ findings: [DoctorFinding], json: Bool) -> String {
        let worst = findings.map(\.status).max() ?? .ok
        if json {
            let checks = findings.map { finding -> JSONValue in
                .object(
                    JSONObject([
                        ("check", .string(finding.check)), ("status", .string(finding.status.label.lowercased())),
                        ("message", .string(finding.message)), ("fix", finding.fix.map { .string($0) } ?? .null),
                    ]))
            }
            return String(
                decoding: JSONValue.object(
                    JSONObject([("status", .string(worst.label.lowercased())), ("checks", .array(checks))])
                ).jsonBytes, as: UTF8.self)
        }
        let width = findings.map(\.check.count).max() ?? 0
        var lines: [String] = []
        for finding in findings {
            let label = finding.status.label.padding(toLength: 5, withPad: " ", startingAt: 0)
            lines.append(
                label + finding.check.padding(toLength: width + 2, withPad: " ", startingAt: 0) + finding.message)
            if let fix = finding.fix, finding.status != .ok { lines.append("     fix: " + fix) }
        }
        let failures = findings.filter { $0.status == .fail }.count
        let warnings = findings.filter { $0.status == .warn }.count
        lines.append(
            worst == .ok
                ? "kura doctor: all \(findings.count) checks OK"
                : "kura doctor: \(failures) failed, \(warnings) warned (exit \(worst.rawValue))")
        return lines.joined(separator: "\n")
    }

    static func hasDocuments(_ data: String) -> Bool {
        FileManager.default.fileExists(atPath: (data as NSString).appendingPathComponent("documents.db"))
    }

    /// `1.5 MB`.
    static func size(_ bytes: Int64) -> String {
        let units = ["bytes", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) bytes" : "\(String(format: "%.1f", value)) \(units[unit])"
    }
}
