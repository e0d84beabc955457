import Foundation
import KuraTestSupport

/// A seed app's command-line client (`kura-quiz`, `kura-notes`…): the executable `swift build --build-tests` built
/// next to the test bundle.
public struct AppCommand: Sendable {
    public let executable: URL

    /// The product named `name`.
    public init(_ name: String) {
        executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent(name)
    }

    /// Runs it with `--session SESSION`, `--server` when a server is given, then `arguments`, with `input` on
    /// standard input, in an environment of its own (a temporary HOME, a plain PATH, `LANG=language`), off the
    /// cooperative pool; returns its exit status and output.
    public func run(
        _ arguments: [String], server: TestKura?, session: String, input: String = "", language: String = "C"
    ) async throws -> (Int32, String) {
        let arguments =
            ["--session", session] + (server.map { ["--server", $0.url.absoluteString] } ?? []) + arguments
        let environment = ["HOME": NSTemporaryDirectory(), "PATH": "/usr/bin:/bin", "LANG": language]
        let executable = executable
        return try await offPool {
            let run = try runToEnd(
                executable, arguments, environment: environment, inheritEnvironment: false, input: input)
            return (run.status, run.output)
        }
    }
}
