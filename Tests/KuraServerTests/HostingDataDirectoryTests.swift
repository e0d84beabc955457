import Foundation
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

@testable import KuraHosting

/// Hosting never serves, nor opens, anything inside the data directory, however the two meet: the data directory
/// inside the public one (`kura serve --public .`), a symlink into it, a directory moved there after start-up; and
/// a public directory that is (or is inside) the data directory stops the server at start. (That requests for
/// the databases leave the store intact for a command run beside the server needs a second process:
/// KuraEndToEndTests/HostingCommandLineTests.)
@Suite struct HostingDataDirectoryTests {
    /// What a data directory holds, as request paths below it.
    static let dataFiles = [
        "admin.key", "auth-signing-keys.json", "accounts.db", "accounts.db-wal", "accounts.db-shm", "documents.db",
        "documents.db-wal", "documents.db-shm", "mail.db", "mail.db-wal", "kura.rules", "kura.lock",
    ]

    /// Runs `body` against a server hosting a fixture whose data directory is `<root>/kura_data`, the layout of
    /// `kura serve --public .` in a project directory.
    func withNestedData<T>(
        configure: (inout KuraConfiguration) throws -> Void = { _ in }, _ body: (TestKura, HostingFixture) throws -> T
    ) throws -> T {
        try withHostingKura(configure: { configuration in
            configuration.dataDirectory = (configuration.hosting.root ?? "") + "/kura_data"
            configuration.auth = .lowCostForTesting
            configuration.auth.rateLimits.enabled = false
            try configure(&configuration)
        }) { server, fixture in try body(server, fixture) }
    }

    @Test("kura serve --public . layout: every file of the data directory, and the directory itself, is a 404")
    func nestedDataDirectory() throws {
        try withNestedData { server, fixture in
            let data = fixture.root + "/kura_data"
            _ = try server.signUp("ann@example.com")
            try server.put("notes/a", ["text": "private"])
            #expect(FileManager.default.fileExists(atPath: data + "/admin.key"))
            #expect(FileManager.default.fileExists(atPath: data + "/accounts.db"))
            let key = server.adminKey
            for name in Self.dataFiles + [""] {
                for target in ["/kura_data/" + name, "/kura%5Fdata/" + name, "/kura_data/./" + name] {
                    let response = try server.request("GET", target, auth: .none)
                    #expect(response.status == 404, "\(target): \(response.status)")
                    #expect(!response.body.contains(key))
                    #expect(!response.body.contains("SQLite"))
                }
            }
            // Not even a redirect that would tell the directory exists.
            #expect(try server.request("GET", "/kura_data", auth: .none).status == 404)
            #expect(try server.request("HEAD", "/kura_data/admin.key", auth: .none).status == 404)
            // The rest of the root is served as usual.
            #expect(try server.request("GET", "/app.js", auth: .none).status == 200)
        }
    }

    @Test("a symlink under the root into the data directory, or to a file in it, is a 404")
    func symlinkIntoData() throws {
        try withHostingKura(configure: { try $0.set("hosting.revalidateMilliseconds", "0") }) { server, fixture in
            let files = FileManager.default
            // Asked before the links exist: the cached miss must not outlive them.
            #expect(try server.request("GET", "/data/admin.key", auth: .none).status == 404)
            try files.createSymbolicLink(atPath: fixture.root + "/data", withDestinationPath: server.dataDirectory)
            try files.createSymbolicLink(
                atPath: fixture.root + "/key.txt", withDestinationPath: server.dataDirectory + "/admin.key")
            try files.createSymbolicLink(atPath: fixture.root + "/assets/up", withDestinationPath: "../data")
            for target in [
                "/data/admin.key", "/data/accounts.db", "/data/", "/data", "/key.txt", "/assets/up/kura.rules",
            ] {
                let response = try server.request("GET", target, auth: .none)
                #expect(response.status == 404, "\(target): \(response.status)")
                #expect(!response.body.contains(server.adminKey))
            }
        }
    }

    @Test("a data directory moved into the root after start-up is still never served")
    func dataMovedIntoRoot() throws {
        try withHostingKura(configure: { try $0.set("hosting.revalidateMilliseconds", "0") }) { server, fixture in
            let moved = fixture.root + "/moved"
            try FileManager.default.moveItem(atPath: server.dataDirectory, toPath: moved)
            defer { try? FileManager.default.moveItem(atPath: moved, toPath: server.dataDirectory) }
            for name in ["admin.key", "accounts.db", "kura.rules"] {
                #expect(try server.request("GET", "/moved/" + name, auth: .none).status == 404, "\(name)")
            }
        }
    }

    @Test("hard links to the data directory's files are not served")
    func hardLinkIntoData() throws {
        try withHostingKura { server, fixture in
            try FileManager.default.linkItem(
                atPath: server.dataDirectory + "/admin.key", toPath: fixture.root + "/linked.txt")
            #expect(try server.request("GET", "/linked.txt", auth: .none).status == 404)
        }
    }

    @Test("a data directory created inside the root after start-up is never served, nor its files opened")
    func dataCreatedAfterStart() throws {
        let directory = try TemporaryDirectory("hosting-later")
        defer { directory.remove() }
        let root = directory.file("public")
        let data = root + "/kura_data"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try "site".write(toFile: root + "/page.txt", atomically: true, encoding: .utf8)
        let hosting = try HostingRoot(root, protecting: data)
        let page = try #require(HostedPath("/page.txt"))
        guard case .file(let pagePath, _) = hosting.find(page) else { throw TestFailure("page.txt not found") }
        #expect(hosting.open(pagePath) != nil)

        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try "key".write(toFile: data + "/admin.key", atomically: true, encoding: .utf8)
        guard case .missing = hosting.find(try #require(HostedPath("/kura_data/admin.key"))) else {
            throw TestFailure("the data directory's file was found")
        }
        #expect(hosting.open(hosting.path + "/kura_data/admin.key") == nil)
    }

    @Test("a directory swapped for a symlink into the data directory between the check and the open is refused")
    func swappedBetweenCheckAndOpen() throws {
        let directory = try TemporaryDirectory("hosting-swap")
        defer { directory.remove() }
        let root = directory.file("public")
        let data = directory.file("data")
        let files = FileManager.default
        try files.createDirectory(atPath: root + "/media", withIntermediateDirectories: true)
        try files.createDirectory(atPath: data, withIntermediateDirectories: true)
        try "clip".write(toFile: root + "/media/accounts.db", atomically: true, encoding: .utf8)
        try "database".write(toFile: data + "/accounts.db", atomically: true, encoding: .utf8)
        let hosting = try HostingRoot(root, protecting: data)
        guard case .file(let path, _) = hosting.find(try #require(HostedPath("/media/accounts.db"))) else {
            throw TestFailure("media/accounts.db not found")
        }
        // Swapped by a symlink: the walk meets a symlink where the real path had a directory.
        try files.moveItem(atPath: root + "/media", toPath: directory.file("old-media"))
        try files.createSymbolicLink(atPath: root + "/media", withDestinationPath: data)
        #expect(hosting.open(path) == nil)
        // Swapped by the data directory itself, moved there: its identity gives it away.
        try files.removeItem(atPath: root + "/media")
        try files.moveItem(atPath: data, toPath: root + "/media")
        #expect(hosting.open(path) == nil)
    }

    @Test("a public directory that is the data directory stops the server at start, with a sentence")
    func publicIsData() throws {
        let directory = try TemporaryDirectory("hosting-same")
        defer { directory.remove() }
        let error = #expect(throws: ConfigurationError.self) {
            try withTestKura(configure: {
                $0.dataDirectory = directory.path
                try $0.set("hosting.root", directory.path)
            }) { _ in }
        }
        #expect(error?.description.contains("is the data directory") == true, "\(String(describing: error))")
        #expect(error?.description.contains("--public") == true)
        #expect(!FileManager.default.fileExists(atPath: directory.file("admin.key")))
    }

    @Test("a public directory inside the data directory (also through a symlink) stops the server at start")
    func publicInsideData() throws {
        let directory = try TemporaryDirectory("hosting-inside")
        defer { directory.remove() }
        let data = directory.file("kura_data")
        try FileManager.default.createDirectory(atPath: data + "/site", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: directory.file("site-link"), withDestinationPath: data + "/site")
        for root in [data + "/site", directory.file("site-link"), data + "/site/.."] {
            let error = #expect(throws: ConfigurationError.self) {
                try withTestKura(configure: {
                    $0.dataDirectory = data
                    try $0.set("hosting.root", root)
                }) { _ in }
            }
            #expect(
                error?.description.contains("data directory") == true, "\(root): \(String(describing: error))")
        }
        #expect(!FileManager.default.fileExists(atPath: data + "/admin.key"))
    }
}
