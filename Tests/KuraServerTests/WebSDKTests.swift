import Foundation
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// `/sdk/…`: the browser SDK carried inside the binary.
@Suite struct WebSDKTests {
    /// web/sdk/ in this checkout.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../web/sdk").standardizedFileURL.path

    @Test("every file in web/sdk is embedded and served byte for byte with its type")
    func everyFile() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory)
            .filter { $0.hasSuffix(".js") || $0.hasSuffix(".d.ts") }
        #expect(names.contains("kura.js") && names.contains("kura.d.ts"))
        try withTestKura { server in
            for name in names {
                let expected = try Array(Data(contentsOf: URL(fileURLWithPath: Self.directory + "/" + name)))
                let response = try server.request("GET", "/sdk/" + name, auth: .none)
                // A file missing here needs its block in Sources/CKuraWebSDK/kura_web_sdk.c.
                #expect(response.status == 200, "web/sdk/\(name) is not embedded")
                #expect(response.bodyBytes == expected, "\(name)")
                let type = name.hasSuffix(".d.ts") ? "application/typescript" : "text/javascript"
                #expect(response.header("Content-Type") == type + "; charset=utf-8")
                #expect(response.header("Cache-Control") == "no-cache")
                #expect(response.header("X-Content-Type-Options") == "nosniff")
            }
        }
    }

    @Test("kura.js revalidates by ETag, comes gzip-encoded when large enough, and unknown files are JSON 404s")
    func validatorsAndErrors() throws {
        try withTestKura { server in
            let first = try server.request("GET", "/sdk/kura.js", headers: [("Accept-Encoding", "gzip")], auth: .none)
            let etag = try #require(first.header("ETag"))
            let plain = try Array(Data(contentsOf: URL(fileURLWithPath: Self.directory + "/kura.js")))
            if first.header("Content-Encoding") == "gzip" {
                #expect(try gunzip(first.bodyBytes) == plain)
            } else {
                #expect(first.bodyBytes == plain)
            }
            let again = try server.request(
                "GET", "/sdk/kura.js", headers: [("Accept-Encoding", "gzip"), ("If-None-Match", etag)], auth: .none)
            #expect(again.status == 304)
            let missing = try server.request("GET", "/sdk/nope.js", auth: .none)
            #expect(missing.status == 404)
            #expect(missing.errorCode == "NOT_FOUND")
            let cors = try server.request(
                "GET", "/sdk/kura.js", headers: [("Origin", "https://x.example")], auth: .none)
            #expect(cors.header("Access-Control-Allow-Origin") == "*")
        }
    }
}
