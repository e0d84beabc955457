import Foundation
import KuraPostgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The PostgreSQL server the tests of this process use: `KURA_TEST_POSTGRES_URL` when set (a `postgresql://` URL
/// whose role may create databases), else one started once per test process by Tests/Support/postgres_server.sh,
/// which stops it when this process exits. Each test takes a fresh database of its own (`freshDatabase()`), so
/// tests run in parallel without seeing each other's tables or advisory locks.
public enum TestPostgres {
    /// Debian's PostgreSQL 15, or `PG_BIN` (which postgres_server.sh also reads).
    public static let binaries = ProcessInfo.processInfo.environment["PG_BIN"] ?? "/usr/lib/postgresql/15/bin"

    /// Put on every suite that needs the server: skips it, saying why, only when there is neither a URL nor the
    /// binaries (`make test` installs Debian's `postgresql`, so in CI they are there).
    public static var available: ConditionTrait {
        .enabled(
            if: isAvailable,
            "no PostgreSQL binaries in \(binaries) (apt-get install postgresql) and KURA_TEST_POSTGRES_URL is not set")
    }

    /// What `available` checks, as a value: a server URL is given, or the binaries to start one are installed.
    public static var isAvailable: Bool {
        ProcessInfo.processInfo.environment["KURA_TEST_POSTGRES_URL"] != nil || binariesInstalled
    }

    /// Put on suites that start servers of their own (`startServer`), which takes the binaries even when
    /// `KURA_TEST_POSTGRES_URL` is set.
    public static var canStartServers: ConditionTrait {
        .enabled(if: binariesInstalled, "no PostgreSQL binaries in \(binaries) (apt-get install postgresql)")
    }

    private static var binariesInstalled: Bool { FileManager.default.isExecutableFile(atPath: binaries + "/initdb") }

    /// The URL of the server's first database.
    public static func serverURL() throws -> String { try server.get() }

    /// A new, empty database on the test server; returns its URL.
    public static func freshDatabase() throws -> String {
        let url = try serverURL()
        let name = "kura_test_\(getpid())_\(counter.withLock { $0 += 1; return $0 })"
        try PostgresConnection(url: url).execute("CREATE DATABASE \(name)")
        return replacingDatabase(in: url, with: name)
    }

    /// Drops the database at `url` (made by `freshDatabase()`), cutting its open connections.
    public static func dropDatabase(_ url: String) {
        let name = url.split(separator: "/").last.map { String($0.prefix { $0 != "?" }) } ?? ""
        try? PostgresConnection(url: serverURL()).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// `url` with its database name (the path after the hosts) replaced.
    public static func replacingDatabase(in url: String, with name: String) -> String {
        let query = url.firstIndex(of: "?").map { String(url[$0...]) } ?? ""
        let base = query.isEmpty ? url : String(url[..<url.firstIndex(of: "?")!])
        guard let scheme = base.range(of: "://"), let slash = base[scheme.upperBound...].firstIndex(of: "/") else {
            return base + "/" + name + query
        }
        return String(base[..<slash]) + "/" + name + query
    }

    /// `url`'s host list (between `@` or `://` and the path), e.g. `127.0.0.1:5432`.
    public static func hostAndPort(of url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        if let at = rest.firstIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        return String(rest)
    }

    private static let counter = Shared(0)

    private static let server: Result<String, Error> = Result {
        if let url = ProcessInfo.processInfo.environment["KURA_TEST_POSTGRES_URL"], !url.isEmpty { return url }
        return try startServer().url
    }

    /// A throwaway server of a test's own, apart from the shared one (stop it with `stopServer`); it also stops
    /// when this process exits.
    public static func startServer() throws -> (url: String, directory: String) {
        let lines = try runScript("start --owner-pid \(getpid())").split(separator: "\n")
        guard let index = lines.firstIndex(where: { $0.hasPrefix("postgresql://") }), index + 1 < lines.count else {
            throw TestFailure("postgres_server.sh start failed: \(lines.joined(separator: "\n"))")
        }
        return (String(lines[index]), String(lines[index + 1]))
    }

    /// Makes a server that `startServer` started ask for a password on TCP connections: gives the URL's role
    /// `password`, switches `pg_hba.conf` from trust to scram-sha-256 for TCP, reloads, and returns once a
    /// connection without the password is refused.
    public static func requirePassword(url: String, directory: String, password: String) throws {
        let connection = try PostgresConnection(url: url)
        try connection.execute(
            "ALTER ROLE CURRENT_USER PASSWORD '\(password.replacingOccurrences(of: "'", with: "''"))'")
        // Written in place, keeping the file's owner (the server's user) and mode.
        try "local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\nhost all all ::1/128 scram-sha-256\n"
            .write(toFile: directory + "/data/pg_hba.conf", atomically: false, encoding: .utf8)
        try connection.execute("SELECT pg_reload_conf()")
        let deadline = ContinuousClock.now + .seconds(30)
        while (try? PostgresConnection(url: url)) != nil {
            guard ContinuousClock.now < deadline else { throw TestFailure("the server still lets \(url) in") }
            usleep(20_000)
        }
    }

    /// Stops a server that `startServer` started and removes its directory.
    public static func stopServer(_ directory: String) throws {
        _ = try runScript("stop '\(directory)'")
    }

    /// Stops a server that `startServer` started at once, as a crash would (`pg_ctl stop -m immediate`: no
    /// checkpoint; the next start replays the write-ahead log), keeping its directory.
    public static func killServer(_ directory: String) throws {
        let output = try runScript("kill '\(directory)'")
        guard !FileManager.default.fileExists(atPath: directory + "/data/postmaster.pid") else {
            throw TestFailure("postgres_server.sh kill left the server running: \(output)")
        }
    }

    /// Starts a server that `killServer` stopped again, on the port of `url`; returns once it accepts connections.
    public static func restartServer(_ directory: String, url: String) throws {
        let port = hostAndPort(of: url).split(separator: ":").last.map(String.init) ?? ""
        let output = try runScript("restart '\(directory)' \(port)")
        guard (try? PostgresConnection(url: url)) != nil else {
            throw TestFailure("postgres_server.sh restart: the server does not accept connections: \(output)")
        }
    }

    /// Runs Tests/Support/postgres_server.sh with `arguments` and returns what it printed (stdout and stderr).
    /// Through `popen`: Foundation's `Process` hung here (its child reaped by nobody) when called from the static
    /// initializer above while other tests waited on it.
    private static func runScript(_ arguments: String) throws -> String {
        let script = TestEnvironment.repositoryRoot + "/Tests/Support/postgres_server.sh"
        guard let pipe = popen("/bin/bash '\(script)' \(arguments) 2>&1", "r") else {
            throw TestFailure("could not run \(script)")
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count <= 0 { break }
            output += buffer[..<count]
        }
        pclose(pipe)
        return String(decoding: output, as: UTF8.self)
    }
}

/// Runs `body` on a thread of its own (not Swift's cooperative pool, whose few threads blocking libpq calls would
/// starve); `join()` waits for it and returns its result.
public final class TestThread<Result: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Swift.Result<Result, Error>?

    public init(_ body: @escaping @Sendable () throws -> Result) {
        let thread = Thread { [self] in
            result = Swift.Result { try body() }
            done.signal()
        }
        thread.start()
    }

    /// Waits for the thread and returns what its body returned (or rethrows what it threw).
    public func join() throws -> Result {
        done.wait()
        return try result!.get()
    }
}
