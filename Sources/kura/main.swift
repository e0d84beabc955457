import Foundation
import KuraCore
import KuraHTTP
import KuraServer

/// `kura` command line: argument parsing only; everything else lives in KuraServer.
let usage = """
    Kura \(Kura.version): a self-hosted backend for app developers.

    Usage:
      kura serve [OPTIONS]          serve the API (default http://127.0.0.1:8090, data in ./kura_data)
      kura backup FILE [OPTIONS]    write a consistent copy of the document database to FILE, even while serving
      kura rules test TABLE [--rules FILE]
                                    run a rules test table (docs/rules.md) against FILE, the table's "rules" file,
                                    or the default rules; exits 1 if a case fails
      kura admin create-user --email ADDRESS [--password PASSWORD] [--admin] [OPTIONS]
                                    create a verified account (a random password is printed if none is given;
                                    --admin sets the admin claim)
      kura admin rotate-keys [OPTIONS]
                                    make a new ID-token signing key; older keys keep verifying until they age
                                    out (restart the server to sign with the new key)
      kura --version
      kura --help

    Options:
      --host ADDR  --port N  --data DIR  --log-level LEVEL  --public DIR (static hosting)  --config FILE
      --set KEY=VALUE (any setting below)

    Settings (config file key / environment variable):
    \(KuraConfiguration.settings.map { "  \($0.key.padding(toLength: 28, withPad: " ", startingAt: 0)) \($0.environmentName.padding(toLength: 36, withPad: " ", startingAt: 0)) \($0.help)" }.joined(separator: "\n"))

    Precedence: flags > environment > config file (--config or KURA_CONFIG) > defaults.
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("kura: \(message)\n".utf8))
    exit(2)
}

/// Parses the shared options into a configuration; positional arguments are returned in order, and the options
/// named in `extra` (with their values, or "" for the `switches`) separately.
func configuration(
    from arguments: ArraySlice<String>, extra: Set<String> = [], switches: Set<String> = []
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
        guard argument.hasPrefix("--") else {
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
            guard let key = flagKeys[name] else { fail("unknown option \(argument); see kura --help") }
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
    return (configuration, positional, extras)
}

func serve(_ arguments: ArraySlice<String>) {
    let (configuration, positional, _) = configuration(from: arguments)
    guard positional.isEmpty else { fail("serve takes no arguments: \(positional.joined(separator: " "))") }
    // Before any thread starts, so that all of them inherit the signals blocked until a handler is in place.
    HTTPServer.blockTerminationSignals()
    do {
        let kura = try Kura(configuration: configuration)
        try kura.start()
        kura.http.installSignalHandlers()
        kura.wait()
        kura.logger.info("stopped")
    } catch {
        fail("\(error)")
    }
}

func backup(_ arguments: ArraySlice<String>) {
    let (configuration, positional, _) = configuration(from: arguments)
    guard positional.count == 1, let file = positional.first else { fail("usage: kura backup FILE [OPTIONS]") }
    do {
        try Kura.backup(configuration: configuration, to: file)
        print("kura: backed up \(Kura.databasePath(configuration)) to \(file)")
    } catch {
        fail("backup failed: \(error)")
    }
}

func admin(_ arguments: ArraySlice<String>) {
    if arguments.first == "rotate-keys" {
        let (configuration, positional, _) = configuration(from: arguments.dropFirst())
        guard positional.isEmpty else { fail("usage: kura admin rotate-keys [OPTIONS]") }
        do {
            let kid = try Kura.rotateSigningKey(configuration: configuration)
            print("kura: new signing key \(kid); restart the server to sign with it")
        } catch {
            fail("\(error)")
        }
        return
    }
    guard arguments.first == "create-user" else { fail("usage: kura admin create-user|rotate-keys …; see kura --help") }
    let (configuration, positional, extras) = configuration(
        from: arguments.dropFirst(), extra: ["--email", "--password"], switches: ["--admin"])
    guard positional.isEmpty, let email = extras["--email"] else {
        fail("usage: kura admin create-user --email ADDRESS [--password PASSWORD] [--admin]")
    }
    let generated = extras["--password"] == nil
    let password = extras["--password"] ?? SecureRandom.base62(20)
    do {
        let user = try Kura.createUser(
            configuration: configuration, email: email, password: password, admin: extras["--admin"] != nil)
        print("kura: created \(user.email) (uid \(user.uid))\(extras["--admin"] != nil ? " with the admin claim" : "")")
        if generated { print("kura: password: \(password)") }
    } catch {
        fail("\(error)")
    }
}

func rules(_ arguments: ArraySlice<String>) {
    guard arguments.first == "test" else { fail("usage: kura rules test TABLE [--rules FILE]") }
    var rest = arguments.dropFirst()
    var table: String?
    var rulesFile: String?
    while let argument = rest.popFirst() {
        if argument == "--rules" {
            guard let value = rest.popFirst() else { fail("--rules needs a file") }
            rulesFile = value
        } else if argument.hasPrefix("--rules=") {
            rulesFile = String(argument.dropFirst("--rules=".count))
        } else if table == nil, !argument.hasPrefix("--") {
            table = argument
        } else {
            fail("usage: kura rules test TABLE [--rules FILE]")
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
case "admin": admin(arguments.dropFirst())
case "rules": rules(arguments.dropFirst())
case "--version", "version": print("kura \(Kura.version)")
case "--help", "-h", "help", nil: print(usage)
default: fail("unknown command '\(arguments.first!)'; see kura --help")
}
