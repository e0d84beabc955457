import Foundation
import KuraTestSupport
import Testing

/// A misspelt `KURA_*` variable is reported at start-up (flags and config files refuse unknown settings; the
/// environment, shared with everything else, only warns).
@Suite struct EnvironmentWarningTests {
    @Test("kura serve warns once about each unknown KURA_ variable, with the setting it probably meant")
    func serveWarns() throws {
        let root = try TemporaryDirectory("env-warnings")
        defer { root.remove() }
        let environment = [
            "KURA_AUTH_PUBLICURL": "https://app.example.com",  // KURA_AUTH_PUBLIC_URL
            "KURA_HTTP_MAX_BODY_BYTE": "1000",  // KURA_HTTP_MAX_BODY_BYTES
            "KURA_FROBNICATE": "1",
            "KURA_HTTP_IDLE_TIMEOUT_MS": "5000",  // a setting
            "KURA_TEST_SOMETHING": "1", "KURA_TODO_SESSION": "x", "KURA_SERVER": "http://x",  // not settings, known
        ]
        let server = try ServerProcess(
            dataDirectory: root.file("data"), logFile: root.file("kura.log"), environment: environment)
        let healthy = try HTTPClient.get(port: server.port, "/api/health").status
        server.stop()
        #expect(healthy == 200)
        let log = try String(contentsOfFile: root.file("kura.log"), encoding: .utf8)
        let warnings = log.split(separator: "\n").filter { $0.contains("environment variable") }
        #expect(warnings.count == 3, "\(log)")
        #expect(
            warnings.contains {
                $0.contains(" WARN ") && $0.contains("KURA_AUTH_PUBLICURL")
                    && $0.contains("did you mean KURA_AUTH_PUBLIC_URL (auth.publicURL)?")
            }, "\(log)")
        #expect(
            warnings.contains {
                $0.contains("KURA_HTTP_MAX_BODY_BYTE ")
                    && $0.contains("did you mean KURA_HTTP_MAX_BODY_BYTES (http.maxBodyBytes)?")
            }, "\(log)")
        #expect(warnings.contains { $0.contains("KURA_FROBNICATE") && !$0.contains("did you mean") }, "\(log)")
        for quiet in ["KURA_HTTP_IDLE_TIMEOUT_MS", "KURA_TEST_SOMETHING", "KURA_TODO_SESSION", "KURA_SERVER"] {
            #expect(!log.contains(quiet), "\(quiet): \(log)")
        }
    }

    @Test("the other commands warn too, before their work")
    func commandsWarn() throws {
        let root = try TemporaryDirectory("env-warnings-cli")
        defer { root.remove() }
        let (_, output) = try CommandLineTests.kura(
            ["export", root.file("out.ndjson"), "--data", root.file("data")], environment: ["KURA_DATAA": "/x"])
        #expect(output.contains("environment variable KURA_DATAA names no setting"), "\(output)")
        #expect(output.contains("did you mean KURA_DATA (data)?"), "\(output)")
    }
}
