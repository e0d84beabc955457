import Foundation
import KuraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The PostgreSQL password need not be on the command line (where `ps` shows it): `kura` takes it from libpq's
/// own sources (`PGPASSWORD`, `PGPASSFILE`, `passfile=` in `store.url`) and from `store.passwordFile`. Against a
/// server of the test's own that asks for a password.
@Suite(TestPostgres.canStartServers) struct PostgresPasswordTests {
    @Test("kura reaches a password-protected database with the password from the environment, a file or a setting")
    func passwordSources() throws {
        let (url, directory) = try TestPostgres.startServer()
        defer { try? TestPostgres.stopServer(directory) }
        let password = "s3cret-'pw\\:x"
        try TestPostgres.requirePassword(url: url, directory: directory, password: password)
        let root = try TemporaryDirectory("pg-password")
        defer { root.remove() }
        let hostAndPort = TestPostgres.hostAndPort(of: url)
        let port = hostAndPort.split(separator: ":").last.map(String.init) ?? "5432"
        // libpq's password file: host:port:database:user:password, `:` and `\` escaped; mode 0600 or libpq skips it.
        let passfile = root.file("pgpass")
        let escaped = password.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:")
        try "127.0.0.1:\(port):*:kura:\(escaped)\n".write(toFile: passfile, atomically: false, encoding: .utf8)
        chmod(passfile, 0o600)
        let passwordFile = root.file("store-password")
        try "\(password)\n".write(toFile: passwordFile, atomically: false, encoding: .utf8)
        chmod(passwordFile, 0o600)

        var number = 0
        func createUser(url: String, _ extra: [String] = [], environment: [String: String] = [:]) throws -> (
            status: Int32, output: String
        ) {
            number += 1
            return try CommandLineTests.kura(
                [
                    "admin", "create-user", "--email", "user\(number)@example.com", "--password", "a-long-password",
                    "--data", root.file("data\(number)"), "--set", "store.engine=postgres", "--set", "store.url=\(url)",
                ] + extra,
                // No ~/.pgpass of the machine's user gets in the way.
                environment: ["PGPASSFILE": root.file("none"), "HOME": root.path].merging(environment) { $1 })
        }

        let refused = try createUser(url: url)
        #expect(refused.status != 0, "\(refused.output)")
        #expect(refused.output.contains("password"), "\(refused.output)")
        #expect(!refused.output.contains(password))

        let fromEnvironment = try createUser(url: url, environment: ["PGPASSWORD": password])
        #expect(fromEnvironment.status == 0, "PGPASSWORD: \(fromEnvironment.output)")
        let fromPassfileVariable = try createUser(url: url, environment: ["PGPASSFILE": passfile])
        #expect(fromPassfileVariable.status == 0, "PGPASSFILE: \(fromPassfileVariable.output)")
        let fromPassfileParameter = try createUser(url: url + "?passfile=\(passfile)")
        #expect(fromPassfileParameter.status == 0, "passfile=: \(fromPassfileParameter.output)")
        let fromSetting = try createUser(url: url, ["--set", "store.passwordFile=\(passwordFile)"])
        #expect(fromSetting.status == 0, "store.passwordFile: \(fromSetting.output)")
        let fromEnvironmentSetting = try createUser(url: url, environment: ["KURA_STORE_PASSWORD_FILE": passwordFile])
        #expect(fromEnvironmentSetting.status == 0, "KURA_STORE_PASSWORD_FILE: \(fromEnvironmentSetting.output)")

        // A password in store.url wins over the file's, as it wins over libpq's own sources.
        let wrongFile = root.file("wrong-password")
        try "not-it\n".write(toFile: wrongFile, atomically: false, encoding: .utf8)
        let wrongFromFile = try createUser(url: url, ["--set", "store.passwordFile=\(wrongFile)"])
        #expect(wrongFromFile.status != 0, "\(wrongFromFile.output)")
        let encoded = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let urlWithPassword = url.replacingOccurrences(of: "postgresql://kura@", with: "postgresql://kura:\(encoded)@")
        #expect(urlWithPassword != url)
        let urlWins = try createUser(url: urlWithPassword, ["--set", "store.passwordFile=\(wrongFile)"])
        #expect(urlWins.status == 0, "\(urlWins.output)")

        let missing = try createUser(url: url, ["--set", "store.passwordFile=\(root.file("nowhere"))"])
        #expect(missing.status == 2, "\(missing.output)")
        #expect(missing.output.contains("store.passwordFile: cannot read"), "\(missing.output)")
    }
}
