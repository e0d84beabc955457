import Foundation
import KuraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Command-line conventions: every command answers `--help` with its own usage and exit 0; a usage error is one
/// line on stderr and exit 2; `kura serve --dev` is the development loop and serves loopback only.
@Suite struct CommandLineHelpTests {
    static let helpCases: [(arguments: [String], firstLine: String)] = [
        (["--help"], "Kura "),
        (["serve", "--help"], "Usage: kura serve"),
        (["serve", "-h"], "Usage: kura serve"),
        (["backup", "--help"], "Usage: kura backup"),
        (["doctor", "--help"], "Usage: kura doctor"),
        (["export", "--help"], "Usage: kura export"),
        (["import", "--help"], "Usage: kura import"),
        (["rules", "--help"], "Usage: kura rules test"),
        (["rules", "test", "--help"], "Usage: kura rules test"),
        (["admin", "--help"], "Usage:"),
        (["admin", "create-user", "--help"], "Usage: kura admin create-user"),
        (["admin", "rotate-keys", "--help"], "Usage: kura admin rotate-keys"),
    ]

    @Test("every command prints its own help and exits 0", arguments: 0..<helpCases.count)
    func help(_ index: Int) throws {
        let (arguments, firstLine) = Self.helpCases[index]
        let (status, output) = try CommandLineTests.kura(arguments)
        #expect(status == 0, "kura \(arguments.joined(separator: " ")): \(output)")
        #expect(output.hasPrefix(firstLine), "kura \(arguments.joined(separator: " ")): \(output.prefix(200))")
    }

    static let usageErrors: [[String]] = [
        ["serve", "--bogus"],
        ["serve", "extra"],
        ["backup", "--bogus", "x.db"],
        ["doctor", "--bogus"],
        ["export"],
        ["import", "--bogus", "x.ndjson"],
        ["import", "x.ndjson", "--batch", "many"],
        ["rules", "test", "--bogus"],
        ["rules", "frobnicate"],
        ["admin", "create-user", "--bogus"],
        ["admin", "rotate-keys", "--bogus"],
        ["admin", "frobnicate"],
        ["frobnicate"],
        ["serve", "--port"],
    ]

    @Test("a usage error is one line and exit 2", arguments: 0..<usageErrors.count)
    func usageError(_ index: Int) throws {
        let arguments = Self.usageErrors[index]
        let (status, output) = try CommandLineTests.kura(arguments)
        #expect(status == 2, "kura \(arguments.joined(separator: " ")): \(output)")
        let lines = output.split(separator: "\n")
        #expect(lines.count == 1, "kura \(arguments.joined(separator: " ")): \(output)")
        #expect(output.hasPrefix("kura: "))
    }

    @Test("kura serve --help lists every environment variable whole, in its natural spelling")
    func helpListsNaturalEnvironmentNames() throws {
        let (_, output) = try CommandLineTests.kura(["serve", "--help"])
        for name in [
            "KURA_AUTH_PUBLIC_URL", "KURA_SMTP_STARTTLS", "KURA_AUTH_SEND_VERIFICATION_ON_SIGN_UP",
            "KURA_AUTH_REFRESH_TOKEN_REUSE_GRACE_SECONDS", "KURA_HTTP_MAX_BODY_BYTES",
        ] {
            #expect(output.contains(" \(name)\n"), "\(name) missing from kura serve --help")
        }
        for key in ["auth.sendVerificationOnSignUp", "auth.refreshTokenReuseGraceSeconds"] {
            #expect(output.contains("  \(key) "), "\(key) cut in kura serve --help")
        }
        #expect(!output.contains("_U_R_L") && !output.contains("_T_L_S"))
    }

    @Test("kura serve --dev refuses an address other than loopback")
    func devRefusesNonLoopback() throws {
        for host in ["0.0.0.0", "::", "192.0.2.1"] {
            let (status, output) = try CommandLineTests.kura(["serve", "--dev", "--host", host, "--port", "0"])
            #expect(status == 2, "\(host): \(output)")
            #expect(output.contains("loopback"))
        }
    }

    @Test("kura serve --dev prints held mails, lifts auth rate limits and explains nothing it should not")
    func devMode() throws {
        let root = try TemporaryDirectory("cli").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let log = root + "/kura.log"
        let server = try ServerProcess(dataDirectory: root + "/data", logFile: log, arguments: ["--dev"])
        defer { server.stop() }
        let signUp = try HTTPClient.send(
            port: server.port, "POST", "/api/auth/signup",
            body: JSON.encode(["email": "dev@example.com", "password": "secret1"]))
        #expect(signUp.status == 201)
        // The verification mail is printed whole on the terminal (the child's stdout goes to the log file here).
        var printed = ""
        for _ in 0..<200 {
            printed = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if printed.contains("--- end of mail") { break }
            usleep(10_000)
        }
        #expect(printed.contains("To: dev@example.com"))
        #expect(printed.contains("/auth/action?"))
        // Rate limits are off: far more wrong sign-ins than the per-client burst (20) are all 400, never 429.
        for _ in 0..<25 {
            let wrong = try HTTPClient.send(
                port: server.port, "POST", "/api/auth/signin",
                body: JSON.encode(["email": "dev@example.com", "password": "wrong-password"]))
            #expect(wrong.status != 429)
        }
    }
}
