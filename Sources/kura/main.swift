import Foundation
import KuraCore
import KuraHTTP
import KuraModel
import KuraServer

/// `kura` command line: argument parsing only; everything else lives in KuraServer.
/// Each command prints its own help on `--help` and exits 0; a usage error is one line on stderr and exit 2.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("kura: \(message)\n".utf8))
    exit(2)
}

/// Prints `text` and exits 0 when `arguments` ask for help.
func helpIfAsked(_ arguments: ArraySlice<String>, _ text: String) {
    guard arguments.contains(where: { $0 == "--help" || $0 == "-h" }) else { return }
    print(text)
    exit(0)
}

/// Parses the shared options into a configuration; positional arguments are returned in order, and the options
/// named in `extra` (with their values, or "" for the `switches`) separately. `command` names the command in
/// error messages (`see kura COMMAND --help`).
func configuration(
    from arguments: ArraySlice<String>, command: String, extra: Set<String> = [], switches: Set<String> = []
) -> (KuraConfiguration, [String], [String: String]) {
    var extras: [String: String] = [:]
    var flags: [(String, String)] = []
    var positional: [String] = []
    var configPath = ProcessInfo.processInfo.environment["KURA_CONFIG"]
    var rest = arguments
    let flagKeys = [
        "--host": "host", "--port": "port", "--data": "data", "--log-level": "logLevel", "--public": "hosting.root",
    ]
    while let argument = rest.popFirst() {
        guard argument.hasPrefix("-"), argument != "-" else {
            positional.append(argument)
            continue
        }
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        let name = parts[0]
        func value() -> String {
            if parts.count == 2 { return parts[1] }
            guard let next = rest.popFirst() else { fail("\(name) needs a value") }
            return next
        }
        if switches.contains(name) {
            guard parts.count == 1 else { fail("\(name) takes no value") }
            extras[name] = ""
            continue
        }
        if extra.contains(name) {
            extras[name] = value()
            continue
        }
        switch name {
        case "--config": configPath = value()
        case "--set":
            let pair = value().split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { fail("--set takes KEY=VALUE") }
            flags.append((pair[0], pair[1]))
        default:
            guard let key = flagKeys[name] else { fail("unknown option \(name); see kura \(command) --help") }
            flags.append((key, value()))
        }
    }
    var configuration = KuraConfiguration()
    do {
        if let configPath { try configuration.applyFile(at: configPath) }
        try configuration.applyEnvironment(ProcessInfo.processInfo.environment)
        for (key, value) in flags { try configuration.set(key, value) }
    } catch {
        fail("\(error)")
    }
    let logger = Logger(level: configuration.logLevel)
    for warning in KuraConfiguration.environmentWarnings(ProcessInfo.processInfo.environment) { logger.warn(warning) }
    return (configuration, positional, extras)
}

func serve(_ arguments: ArraySlice<String>) {
    helpIfAsked(arguments, Usage.serve)
    var (configuration, positional, extras) = configuration(from: arguments, command: "serve", switches: ["--dev"])
    guard positional.isEmpty else { fail("serve takes no arguments: \(positional.joined(separator: " "))") }
    if extras["--dev"] != nil {
        do { try configuration.applyDevelopmentMode() } catch { fail("\(error)") }
    }
    // Before any thread starts, so that all of them inherit the signals blocked until a handler is in place.
    HTTPServer.blockTerminationSignals()
    do {
        let kura = try KuraNode(configuration: configuration)
        if extras["--dev"] != nil {
            kura.logger.warn("development mode: auth rate limits off, held mails printed, errors explained")
        }
        try kura.start()
        kura.http.installSignalHandlers()
        kura.wait()
        kura.logger.info("stopped")
    } catch {
        fail("\(error)")
    }
}

func backup(_ arguments: ArraySlice<String>) {
    helpIfAsked(arguments, Usage.backup)
    KuraNode.keepDatabaseSideFiles()
    let (configuration, positional, _) = configuration(from: arguments, command: "backup")
    guard positional.count == 1, let directory = positional.first else {
        fail("usage: kura backup DIRECTORY [OPTIONS]")
    }
    do {
        let summary = try KuraNode.backup(configuration: configuration, to: directory)
        print("kura: backed up \(summary) to \(directory)")
    } catch {
        fail("backup failed: \(error)")
    }
}

func doctor(_ arguments: ArraySlice<String>) {
    helpIfAsked(arguments, Usage.doctor)
    KuraNode.keepDatabaseSideFiles()
    let (configuration, positional, extras) = configuration(
        from: arguments, command: "doctor", switches: ["--json", "--full"])
    guard positional.isEmpty else { fail("usage: kura doctor [--json] [--full] [OPTIONS]") }
    let findings = Doctor.run(configuration: configuration, full: extras["--full"] != nil)
    print(Doctor.report(findings, json: extras["--json"] != nil))
    exit(Doctor.exitCode(findings))
}

func export(_ arguments: ArraySlice<String>) {
    helpIfAsked(arguments, Usage.export)
    KuraNode.keepDatabaseSideFiles()
    let (configuration, positional, _) = configuration(from: arguments, command: "export")
    guard positional.count == 1, let file = positional.first else { fail("usage: kura export FILE [OPTIONS]") }
    do {
        let summary = try KuraNode.export(configuration: configuration, to: file)
        if file != "-" { print("kura: exported \(summary) to \(file)") }
    } catch let error as TransferError {
        failTransfer(error)
    } catch {
        fail("export failed: \(error)")
    }
}

func importFile(_ arguments: ArraySlice<String>) {
    helpIfAsked(arguments, Usage.importing)
    let (configuration, positional, extras) = configuration(
        from: arguments, command: "import", extra: ["--batch"], switches: ["--merge"])
    guard positional.count == 1, let file = positional.first else {
        fail("usage: kura import FILE [--merge] [--batch N] [OPTIONS]")
    }
    var batch = 500
    if let text = extras["--batch"] {
        guard let value = Int(text) else { fail("--batch takes a number (1-500)") }
        batch = value
    }
    do {
        let summary = try KuraNode.importFile(
            configuration: configuration, from: file, merge: extras["--merge"] != nil, batchSize: batch)
        print("kura: imported \(summary) from \(file)")
    } catch let error as TransferError {
        failTransfer(error)
    } catch {
        fail("import failed: \(error)")
    }
}

/// Prints a transfer error and exits with its code (2: refused before writing, 1: failed while writing).
func failTransfer(_ error: TransferError) -> Never {
    FileHandle.standardError.write(Data("kura: \(error.message)\n".utf8))
    exit(error.exitCode)
}

func rotateKeys(_ arguments: ArraySlice<String>) {
    helpIfAsked(arguments, Usage.rotateKeys)
    KuraNode.keepDatabaseSideFiles()
    let (configuration, positional, _) = configuration(from: arguments, command: "admin rotate-keys")
    guard positional.isEmpty else { fail("usage: kura admin rotate-keys [OPTIONS]") }
    do {
        let kid = try KuraNode.rotateSigningKey(configuration: configuration)
        print("kura: new signing key \(kid); restart the server to sign with it")
    } catch {
        fail("\(error)")
    }
}

func createUser(_ arguments: ArraySlice<String>) {
    helpIfAsked(arguments, Usage.createUser)
    KuraNode.keepDatabaseSideFiles()
    let (configuration, positional, extras) = configuration(
        from: arguments, command: "admin create-user", extra: ["--email", "--password"],
        switches: ["--admin", "--password-stdin"])
    guard positional.isEmpty, let email = extras["--email"] else {
        fail("usage: kura admin create-user --email ADDRESS [--password-stdin | --password PASSWORD] [--admin]")
    }
    var given = extras["--password"]
    if extras["--password-stdin"] != nil {
        // Read from standard input, so the password is not in the process list (`ps` shows every argument).
        guard given == nil else { fail("give either --password or --password-stdin, not both") }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            fail("--password-stdin: standard input held no password (one line is read)")
        }
        given = line
    }
    let generated = given == nil
    let password = given ?? SecureRandom.base62(20)
    do {
        let user = try KuraNode.createUser(
            configuration: configuration, email: email, password: password, admin: extras["--admin"] != nil)
        print("kura: created \(user.email) (uid \(user.uid))\(extras["--admin"] != nil ? " with the admin claim" : "")")
        if generated { print("kura: password: \(password)") }
    } catch {
        fail("\(error)")
    }
}

func admin(_ arguments: ArraySlice<String>) {
    switch arguments.first {
    case "rotate-keys": rotateKeys(arguments.dropFirst())
    case "create-user": createUser(arguments.dropFirst())
    case "--help", "-h", "help": print(Usage.admin)
    case nil: fail("usage: kura admin create-user|rotate-keys …; see kura admin --help")
    case let other?: fail("unknown admin command '\(other)'; see kura admin --help")
    }
}

func rules(_ arguments: ArraySlice<String>) {
    switch arguments.first {
    case "test": break
    case "--help", "-h", "help":
        print(Usage.rules)
        return
    case nil: fail("usage: kura rules test TABLE [--rules FILE]; see kura rules --help")
    case let other?: fail("unknown rules command '\(other)'; see kura rules --help")
    }
    var rest = arguments.dropFirst()
    helpIfAsked(rest, Usage.rules)
    var table: String?
    var rulesFile: String?
    while let argument = rest.popFirst() {
        if argument == "--rules" {
            guard let value = rest.popFirst() else { fail("--rules needs a file") }
            rulesFile = value
        } else if argument.hasPrefix("--rules=") {
            rulesFile = String(argument.dropFirst("--rules=".count))
        } else if argument.hasPrefix("-") {
            fail("unknown option \(argument); see kura rules test --help")
        } else if table == nil {
            table = argument
        } else {
            fail("rules test takes one TABLE; got '\(argument)' too")
        }
    }
    guard let table else { fail("usage: kura rules test TABLE [--rules FILE]") }
    do {
        let (report, passed) = try RulesTool.test(tablePath: table, rulesPath: rulesFile)
        print(report)
        exit(passed ? 0 : 1)
    } catch {
        fail("\(error)")
    }
}

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "serve": serve(arguments.dropFirst())
case "backup": backup(arguments.dropFirst())
case "doctor": doctor(arguments.dropFirst())
case "export": export(arguments.dropFirst())
case "import": importFile(arguments.dropFirst())
case "admin": admin(arguments.dropFirst())
case "rules": rules(arguments.dropFirst())
case "--version", "version": print("kura \(KuraNode.version)")
case "--help", "-h", "help", nil: print(Usage.tool)
case let other?: fail("unknown command '\(other)'; see kura --help")
}
