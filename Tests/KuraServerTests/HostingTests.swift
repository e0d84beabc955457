import Foundation
import KuraHosting
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Static hosting (`hosting.*`) over real sockets: files, validators, gzip, directories, the SPA fallback, the
/// paths it refuses and the cache noticing changes on disk.
@Suite struct HostingTests {
    @Test("a file: 200 with its type, validators, cache policy and nosniff; HEAD gives the same head, no body")
    func file() throws {
        try withHostingKura { server, _ in
            let response = try server.request("GET", "/app.js", auth: .none)
            #expect(response.status == 200)
            #expect(response.body == HostingFixture.script)
            #expect(response.header("Content-Type") == "text/javascript; charset=utf-8")
            #expect(response.header("ETag")?.hasPrefix("\"") == true)
            #expect(response.header("Last-Modified")?.hasSuffix(" GMT") == true)
            #expect(response.header("Cache-Control") == "no-cache")
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            #expect(response.header("Content-Encoding") == nil)
            #expect(response.header("Vary") == "Accept-Encoding")

            let head = try server.request("HEAD", "/app.js", auth: .none)
            #expect(head.status == 200)
            #expect(head.bodyBytes.isEmpty)
            #expect(head.header("Content-Length") == String(HostingFixture.script.utf8.count))
            #expect(head.header("ETag") == response.header("ETag"))
        }
    }

    @Test("If-None-Match and an unchanged If-Modified-Since get 304; a stale ETag gets the file")
    func conditional() throws {
        try withHostingKura { server, _ in
            let first = try server.request("GET", "/app.js", auth: .none)
            let etag = try #require(first.header("ETag"))
            let modified = try #require(first.header("Last-Modified"))
            let byETag = try server.request("GET", "/app.js", headers: [("If-None-Match", etag)], auth: .none)
            #expect(byETag.status == 304)
            #expect(byETag.header("ETag") == etag)
            let byDate = try server.request("GET", "/app.js", headers: [("If-Modified-Since", modified)], auth: .none)
            #expect(byDate.status == 304)
            let stale = try server.request("GET", "/app.js", headers: [("If-None-Match", "\"old\"")], auth: .none)
            #expect(stale.status == 200)
            #expect(stale.body == HostingFixture.script)
        }
    }

    @Test("gzip for text when accepted, decompressing to the file; its own ETag revalidates; q=0 refuses it")
    func gzip() throws {
        try withHostingKura { server, _ in
            let response = try server.request(
                "GET", "/app.js", headers: [("Accept-Encoding", "br, gzip;q=0.8")], auth: .none)
            #expect(response.header("Content-Encoding") == "gzip")
            #expect(response.header("Vary") == "Accept-Encoding")
            #expect(response.bodyBytes.count < HostingFixture.script.utf8.count)
            #expect(try gunzip(response.bodyBytes) == Array(HostingFixture.script.utf8))
            let etag = try #require(response.header("ETag"))
            let again = try server.request(
                "GET", "/app.js", headers: [("Accept-Encoding", "gzip"), ("If-None-Match", etag)], auth: .none)
            #expect(again.status == 304)

            let refused = try server.request("GET", "/app.js", headers: [("Accept-Encoding", "gzip;q=0")], auth: .none)
            #expect(refused.header("Content-Encoding") == nil)
            #expect(refused.body == HostingFixture.script)

            let image = try server.request(
                "GET", "/assets/logo.png", headers: [("Accept-Encoding", "gzip")], auth: .none)
            #expect(image.header("Content-Encoding") == nil)
            #expect(image.header("Content-Type") == "image/png")
        }
    }

    @Test("files under the immutable prefix are cached for a year; HTML always revalidates")
    func cacheControl() throws {
        try withHostingKura(configure: { try $0.set("hosting.cacheControl", "public, max-age=60") }) { server, _ in
            let asset = try server.request("GET", "/assets/app.3f2a.css", auth: .none)
            #expect(asset.header("Cache-Control") == "public, max-age=31536000, immutable")
            #expect(asset.header("Content-Type") == "text/css; charset=utf-8")
            #expect(try server.request("GET", "/app.js", auth: .none).header("Cache-Control") == "public, max-age=60")
            #expect(try server.request("GET", "/", auth: .none).header("Cache-Control") == "no-cache")
        }
    }

    @Test("directories serve their index.html; without the trailing slash they redirect to it")
    func directories() throws {
        try withHostingKura { server, _ in
            let home = try server.request("GET", "/", auth: .none)
            #expect(home.status == 200)
            #expect(home.body.contains("the app"))
            #expect(home.header("Content-Type") == "text/html; charset=utf-8")
            let docs = try server.request("GET", "/docs/", auth: .none)
            #expect(docs.body.contains("<title>docs</title>"))
            let redirect = try server.request("GET", "/docs?x=1", auth: .none)
            #expect(redirect.status == 301)
            #expect(redirect.header("Location") == "/docs/?x=1")
            #expect(try server.request("GET", "/assets/", auth: .none).status == 404)  // no listings
        }
    }

    @Test(
        "traversal, encoded traversal, dotfiles and symlinks out of the root are all 404",
        arguments: [
            "/../outside/secret.txt", "/%2e%2e/outside/secret.txt", "/assets/%2e%2e/%2e%2e/outside/secret.txt",
            "/assets%2f..%2f..%2foutside%2fsecret.txt", "/..%5coutside%5csecret.txt", "/.env", "/%2eenv",
            "/.git/config", "/leak.txt", "/outside-dir/secret.txt", "/env.txt", "//app.js", "/app.js%00.png",
            "/assets/%zz", "/nothing-here.js",
        ])
    func refused(path: String) throws {
        try withHostingKura { server, _ in
            let json = try server.request("GET", path, headers: [("Accept", "application/json")], auth: .none)
            #expect(json.status == 404)
            #expect(json.errorCode == "NOT_FOUND")
            #expect(!json.body.contains("top secret") && !json.body.contains("SECRET"))
            let page = try server.request("GET", path, headers: [("Accept", "text/html,*/*")], auth: .none)
            #expect(page.status == 404)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(!page.body.contains("top secret") && !page.body.contains("SECRET"))
        }
    }

    @Test("a symlink that stays inside the root is served")
    func innerSymlink() throws {
        try withHostingKura { server, _ in
            let response = try server.request("GET", "/alias.js", auth: .none)
            #expect(response.status == 200)
            #expect(response.body == HostingFixture.script)
        }
    }

    @Test("the SPA fallback answers page navigations with index.html, and nothing else")
    func spaFallback() throws {
        try withHostingKura(configure: { try $0.set("hosting.spaFallback", "true") }) { server, _ in
            let page = try server.request(
                "GET", "/users/42/profile", headers: [("Accept", "text/html,application/xhtml+xml")], auth: .none)
            #expect(page.status == 200)
            #expect(page.body.contains("the app"))
            let script = try server.request("GET", "/missing.js", headers: [("Accept", "*/*")], auth: .none)
            #expect(script.status == 404)
            let dotfile = try server.request("GET", "/.env", headers: [("Accept", "text/html")], auth: .none)
            #expect(dotfile.status == 404)
        }
    }

    @Test("Kura's own paths stay Kura's: /api and /sdk are never looked up under the root")
    func ownedPaths() throws {
        try withHostingKura { server, fixture in
            try FileManager.default.createDirectory(atPath: fixture.root + "/api", withIntermediateDirectories: true)
            try fixture.write("api/health", "shadow")
            #expect(try server.request("GET", "/api/health", auth: .none).json["status"] as? String == "ok")
            let missing = try server.request("GET", "/api/nope", auth: .none)
            #expect(missing.status == 404)
            #expect(missing.errorCode == "NOT_FOUND")
            #expect(try server.request("POST", "/app.js", body: [], auth: .none).status == 405)
        }
    }

    @Test("a changed file is served as changed once the revalidation interval is over")
    func invalidation() throws {
        try withHostingKura(configure: { try $0.set("hosting.revalidateMilliseconds", "0") }) { server, fixture in
            let before = try server.request("GET", "/app.js", auth: .none)
            #expect(before.body == HostingFixture.script)
            try fixture.write("app.js", "export const version = 2;\n")
            let after = try server.request("GET", "/app.js", auth: .none)
            #expect(after.body == "export const version = 2;\n")
            #expect(after.header("ETag") != before.header("ETag"))
            try FileManager.default.removeItem(atPath: fixture.root + "/app.js")
            #expect(try server.request("GET", "/app.js", auth: .none).status == 404)
        }
    }

    @Test("within the revalidation interval the cached file is served without looking at the disk")
    func cachedWithinInterval() throws {
        try withHostingKura(configure: { try $0.set("hosting.revalidateMilliseconds", "600000") }) {
            server, fixture in
            #expect(try server.request("GET", "/app.js", auth: .none).body == HostingFixture.script)
            try fixture.write("app.js", "changed")
            #expect(try server.request("GET", "/app.js", auth: .none).body == HostingFixture.script)
        }
    }

    @Test("files above hosting.maxCachedFileBytes are read per request and still served whole")
    func largeFile() throws {
        try withHostingKura(configure: { try $0.set("hosting.maxCachedFileBytes", "100") }) { server, fixture in
            let response = try server.request("GET", "/app.js", headers: [("Accept-Encoding", "gzip")], auth: .none)
            #expect(response.body == HostingFixture.script)
            #expect(response.header("Content-Encoding") == nil)
            try fixture.write("app.js", "export const v = 3;\n")
            #expect(try server.request("GET", "/app.js", auth: .none).body == "export const v = 3;\n")
        }
    }

    @Test("a 300 KB file arrives whole, twice on one keep-alive connection, and compressed when asked")
    func bigFile() throws {
        try withHostingKura { server, fixture in
            let text = (0..<6000).map { "line \($0) of a big stylesheet;\n" }.joined()
            try fixture.write("assets/big.css", text)
            let client = try server.client()
            for _ in 0..<2 {
                let response = try client.request("GET", "/assets/big.css", auth: .none)
                #expect(response.bodyBytes == Array(text.utf8))
            }
            let gzipped = try client.request(
                "GET", "/assets/big.css", headers: [("Accept-Encoding", "gzip")], auth: .none)
            #expect(try gunzip(gzipped.bodyBytes) == Array(text.utf8))
        }
    }

    @Test("without a hosting root, / is the landing page and other paths are JSON 404s")
    func noRoot() throws {
        try withTestKura { server in
            let home = try server.request("GET", "/", auth: .none)
            #expect(home.status == 200)
            #expect(home.body.contains("is running"))
            let other = try server.request("GET", "/index.html", auth: .none)
            #expect(other.status == 404)
            #expect(other.errorCode == "NOT_FOUND")
        }
    }

    @Test("a hosting root that is not a directory stops the server at start")
    func badRoot() {
        #expect(throws: ConfigurationError.self) {
            try withTestKura(configure: { try $0.set("hosting.root", "/etc/hostname") }) { _ in }
        }
    }

    @Test(
        "hosted paths refuse dot segments, empty segments and encoded separators before touching the disk",
        arguments: [
            ("/a/b.js", "/a/b.js"), ("/", "/"), ("/docs/", "/docs/"), ("/caf%C3%A9.html", "/café.html"),
            ("/../x", nil), ("/a/./b", nil), ("/a//b", nil), ("/%2E%2E/x", nil), ("/a%2fb", nil), ("/a%5Cb", nil),
            ("/.well-known/x", nil), ("/a%00", nil), ("relative", nil),
        ] as [(String, String?)])
    func hostedPath(raw: String, key: String?) {
        #expect(HostedPath(Substring(raw))?.key == key)
    }
}
