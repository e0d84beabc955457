import KuraAuth
import KuraCore
import KuraModel
import KuraRules
import KuraStore

/// What is wrong with one line of an import file; the importer adds the file name and line number.
struct TransferLineProblem: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

extension TransferLine {
    /// The JSON object on a line (nesting allowed: a document's own limit plus the line's two levels).
    static func object(_ bytes: ArraySlice<UInt8>) throws -> JSONObject {
        if bytes.isEmpty { throw TransferLineProblem("empty line") }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes, maxDepth: DocumentLimits.maxDepth + 3)
        } catch let error as ValidationError {
            throw TransferLineProblem("not valid JSON: \(error.message)")
        }
        guard case .object(let object) = value else { throw TransferLineProblem("not a JSON object") }
        return object
    }

    /// The header, which must be the first line.
    static func parseHeader(_ bytes: ArraySlice<UInt8>) throws -> TransferHeader {
        let object = try object(bytes)
        guard object["kind"] == .string("header"), object["format"] == .string(TransferHeader.formatName) else {
            throw TransferLineProblem(
                "the first line must be the header ({\"kind\":\"header\",\"format\":\"kura-export\",…}): "
                    + "this is not a Kura export file")
        }
        let members = try LineMembers(
            object, kind: "header",
            allowed: [
                "kind", "format", "formatVersion", "kura", "engine", "time", "documents", "accounts", "indexes",
                "rules",
            ])
        let version = try members.int("formatVersion")
        guard version == TransferHeader.currentVersion else {
            throw TransferLineProblem(
                "formatVersion \(version) is not supported (this Kura reads version \(TransferHeader.currentVersion))")
        }
        return TransferHeader(
            formatVersion: version, kuraVersion: try members.string("kura"), engine: try members.string("engine"),
            time: try members.time("time"), documents: try members.count("documents"),
            accounts: try members.count("accounts"), indexes: try members.count("indexes"),
            rules: try members.count("rules"))
    }

    /// A record line, checked as thoroughly as the API checks the same thing.
    /// `bounds`: the argon2id costs an account's password hash may have.
    static func parseRecord(_ bytes: ArraySlice<UInt8>, bounds: Argon2Bounds = Argon2Bounds()) throws -> TransferRecord
    {
        let object = try object(bytes)
        guard case .string(let kind)? = object["kind"] else {
            throw TransferLineProblem("missing \"kind\" (header, rules, index, account or document)")
        }
        switch kind {
        case "document": return .document(try document(object))
        case "account": return .account(try account(object, bounds: bounds))
        case "index":
            let members = try LineMembers(object, kind: kind, allowed: ["kind", "index"])
            do { return .index(try CompositeIndex(json: members.value("index"))) } catch let error as APIError {
                throw TransferLineProblem(error.message)
            }
        case "rules":
            let members = try LineMembers(object, kind: kind, allowed: ["kind", "source"])
            let source = try members.string("source")
            do { _ = try RuleSet.compile(source: source, fileName: "rules") } catch {
                throw TransferLineProblem("the rules do not compile: \(error.description)")
            }
            return .rules(source)
        case "header": throw TransferLineProblem("a second header (only the first line is one)")
        default: throw TransferLineProblem("unknown kind '\(kind)' (rules, index, account or document)")
        }
    }

    private static func document(_ object: JSONObject) throws -> Document {
        let members = try LineMembers(
            object, kind: "document", allowed: ["kind", "path", "createTime", "updateTime", "version", "data"])
        let pathText = try members.string("path")
        let path: DocumentPath
        do { path = try DocumentPath(pathText) } catch {
            throw TransferLineProblem("path '\(pathText)' is not a document path (\(error))")
        }
        guard case .object(let fields) = try members.value("data") else {
            throw TransferLineProblem("data must be an object")
        }
        do { _ = try DocumentLimits.validate(fields) } catch let error as APIError {
            throw TransferLineProblem("data: \(error.message)")
        }
        let document = Document(
            path: path, fields: fields, createTime: try members.time("createTime"),
            updateTime: try members.time("updateTime"), version: try members.int("version"))
        guard document.version >= 1 else { throw TransferLineProblem("version must be at least 1") }
        guard document.createTime <= document.updateTime else {
            throw TransferLineProblem("updateTime is before createTime")
        }
        return document
    }

    private static func account(_ object: JSONObject, bounds: Argon2Bounds) throws -> AccountRecord {
        let members = try LineMembers(
            object, kind: "account",
            allowed: [
                "kind", "uid", "email", "emailVerified", "displayName", "passwordHash", "disabled", "customClaims",
                "createTime", "lastSignInTime",
            ])
        guard case .object(let claims) = try members.value("customClaims") else {
            throw TransferLineProblem("customClaims must be an object")
        }
        let email = try members.string("email")
        let account = AccountRecord(
            uid: try members.string("uid"), email: email, emailKey: (try? EmailAddress(email))?.key ?? "",
            emailVerified: try members.bool("emailVerified"), displayName: try members.optionalString("displayName"),
            passwordHash: try members.string("passwordHash"), disabled: try members.bool("disabled"),
            customClaims: claims, createTime: try members.time("createTime"),
            lastSignInTime: try members.optionalTime("lastSignInTime"))
        do { try account.validateForImport(bounds: bounds) } catch let error as APIError {
            throw TransferLineProblem(error.message)
        }
        return account
    }
}

/// The members of one line's object, read strictly: unknown members, missing ones and wrong types are problems.
private struct LineMembers {
    let object: JSONObject
    let kind: String

    init(_ object: JSONObject, kind: String, allowed: Set<String>) throws {
        self.object = object
        self.kind = kind
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            throw TransferLineProblem("unknown member '\(unknown)' in a \(kind) line")
        }
    }

    func value(_ name: String) throws -> JSONValue {
        guard let value = object[name] else { throw TransferLineProblem("a \(kind) line needs \"\(name)\"") }
        return value
    }

    func string(_ name: String) throws -> String {
        guard case .string(let text) = try value(name) else { throw TransferLineProblem("\(name) must be a string") }
        return text
    }

    func optionalString(_ name: String) throws -> String? {
        switch object[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw TransferLineProblem("\(name) must be a string or null")
        }
    }

    func bool(_ name: String) throws -> Bool {
        guard case .bool(let flag) = try value(name) else { throw TransferLineProblem("\(name) must be true or false") }
        return flag
    }

    func int(_ name: String) throws -> Int64 {
        guard case .int(let number) = try value(name) else { throw TransferLineProblem("\(name) must be an integer") }
        return number
    }

    func count(_ name: String) throws -> Int64 {
        let number = try int(name)
        guard number >= 0 else { throw TransferLineProblem("\(name) must not be negative") }
        return number
    }

    func time(_ name: String) throws -> Int64 {
        let text = try string(name)
        guard let micros = RFC3339.parse(text) else {
            throw TransferLineProblem("\(name) '\(text)' is not an RFC 3339 time (2026-01-31T12:00:00.000000Z)")
        }
        return micros
    }

    func optionalTime(_ name: String) throws -> Int64? {
        switch object[name] {
        case nil, .null?: return nil
        default: return try time(name)
        }
    }
}
