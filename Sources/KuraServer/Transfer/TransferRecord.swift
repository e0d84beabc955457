import KuraAuth
import KuraCore
import KuraModel
import KuraStore

/// The first line of an export file (docs/export-format.md): what wrote it and how many records follow, so an import
/// can show an ETA and tell a complete file from a cut-off one.
struct TransferHeader: Equatable {
    /// `format`'s value.
    static let formatName = "kura-export"
    /// The format version this Kura writes and reads.
    static let currentVersion: Int64 = 1

    var formatVersion: Int64 = currentVersion
    /// The Kura version that wrote the file.
    var kuraVersion: String
    /// The `store.engine` the records were read from.
    var engine: String
    /// When the export started (microseconds since the epoch).
    var time: Int64
    var documents: Int64
    var accounts: Int64
    var indexes: Int64
    /// 1 when the file holds the security rules, 0 otherwise.
    var rules: Int64

    var total: Int64 { documents + accounts + indexes + rules }
}

/// One line of an export file after the header.
enum TransferRecord {
    /// The security rules source, as written.
    case rules(String)
    /// A composite index definition (one element of `firestore.indexes.json`'s `indexes`).
    case index(CompositeIndex)
    /// An account with its password hash.
    case account(AccountRecord)
    /// A document with its times and version.
    case document(Document)
}

/// The NDJSON lines: each is one JSON object with `kind` first, ending in `\n`. Members are always written in the
/// same order, so the same records give the same bytes.
enum TransferLine {
    static func header(_ header: TransferHeader) -> [UInt8] {
        line([
            ("kind", "header"), ("format", .string(TransferHeader.formatName)),
            ("formatVersion", .int(header.formatVersion)), ("kura", .string(header.kuraVersion)),
            ("engine", .string(header.engine)), ("time", .string(RFC3339.format(header.time))),
            ("documents", .int(header.documents)), ("accounts", .int(header.accounts)),
            ("indexes", .int(header.indexes)), ("rules", .int(header.rules)),
        ])
    }

    static func record(_ record: TransferRecord) -> [UInt8] {
        switch record {
        case .rules(let source): line([("kind", "rules"), ("source", .string(source))])
        case .index(let index): line([("kind", "index"), ("index", index.json)])
        case .account(let account):
            line([
                ("kind", "account"), ("uid", .string(account.uid)), ("email", .string(account.email)),
                ("emailVerified", .bool(account.emailVerified)),
                ("displayName", account.displayName.map(JSONValue.string) ?? .null),
                ("passwordHash", .string(account.passwordHash)), ("disabled", .bool(account.disabled)),
                ("customClaims", .object(account.customClaims)),
                ("createTime", .string(RFC3339.format(account.createTime))),
                ("lastSignInTime", account.lastSignInTime.map { .string(RFC3339.format($0)) } ?? .null),
            ])
        case .document(let document):
            line([
                ("kind", "document"), ("path", .string(document.path.description)),
                ("createTime", .string(RFC3339.format(document.createTime))),
                ("updateTime", .string(RFC3339.format(document.updateTime))), ("version", .int(document.version)),
                ("data", .object(document.fields)),
            ])
        }
    }

    private static func line(_ members: [(String, JSONValue)]) -> [UInt8] {
        var out = JSONValue.object(JSONObject(members)).jsonBytes
        out.append(0x0A)
        return out
    }
}
