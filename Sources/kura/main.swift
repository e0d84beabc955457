import Foundation
import KuraCore
import KuraServer

/// `kura` command line: argument parsing only; everything else lives in KuraServer.
let usage = """
    Kura \(Kura.version): a self-hosted backend for app developers.

    Usage:
      kura serve [--host ADDR] [--port N] [--data DIR] [--config FILE] [--log-level LEVEL] [--set KEY=VALUE]...
      kura --version
      kura --help

    Settings (config file key / environment variable):
    \(KuraConfiguration.settings.map { "  \($0.key.padding(toLength: 26, withPad: " ", startingAt: 0)) \($0.environmentName.padding(toLength: 34, withPad: " ", startingAt: 0)) \($0.help)" }.joined(separator: "\n"))

    Precedence: flags > environment > config file (--config or KURA_CONFIG) > defaults.
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("kura: \(message)\n".utf8))
    exit(2)
}

func serve(_ arguments: ArraySlice<String>) {
    var flags: [(String, String)] = []
    var configPath = ProcessInfo.processInfo.environment["KURA_CONFIG"]
    var rest = arguments
    let flagKeys = ["--host": "host", "--port": "port", "--data": "data", "--log-level": "logLevel"]
    while let argument = rest.popFirst() {
        let (name, inline) =
            argument.contains("=") && argument.hasPrefix("--")
            ? (
                String(argument.split(separator: "=", maxSplits: 1)[0]),
                String(argument.split(separator: "=", maxSplits: 1)[1])
            )
            : (argument, nil)
        func value() -> String {
            if let inline { return inline }
            guard let next = rest.popFirst() else { fail("\(name) needs a value") }
            return next
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
        let kura = try Kura(configuration: configuration)
        try kura.start()
        kura.http.installSignalHandlers()
        kura.http.wait()
        kura.logger.info("stopped")
    } catch {
        fail("\(error)")
    }
}

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "serve": serve(arguments.dropFirst())
case "--version", "version": print("kura \(Kura.version)")
case "--help", "-h", "help", nil: print(usage)
default: fail("unknown command '\(arguments.first!)'; see kura --help")
}
