import Foundation
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// CORS through the whole server: the API, its errors and the listen stream, with `cors.*` settings.
@Suite struct CORSServerTests {
    @Test("API answers, errors and the listen stream carry the CORS headers by default")
    func defaultPolicy() throws {
        try withTestKura { server in
            let origin = [("Origin", "https://page.example")]
            let created = try server.request("PUT", "/api/docs/todos/t1", json: ["data": ["a": 1]], headers: origin)
            #expect(created.status == 200)
            #expect(created.header("Access-Control-Allow-Origin") == "*")
            #expect(created.header("Access-Control-Expose-Headers")?.contains("ETag") == true)

            let denied = try server.request("GET", "/api/docs/todos/t1", headers: origin, auth: .none)
            #expect(denied.status == 403)
            #expect(denied.header("Access-Control-Allow-Origin") == "*")

            let stream = try server.listen("?doc=todos/t1", headers: origin)
            #expect(stream.status == 200)
            #expect(stream.head.contains("Access-Control-Allow-Origin: *"))
            _ = try stream.expect("connected")
            _ = try stream.expect("snapshot")
        }
    }

    @Test("the preflight of a listen stream allows Authorization and Last-Event-ID")
    func listenPreflight() throws {
        try withTestKura(configure: { try $0.set("cors.maxAgeSeconds", "90") }) { server in
            let response = try server.request(
                "OPTIONS", "/api/listen",
                headers: [
                    ("Origin", "https://page.example"), ("Access-Control-Request-Method", "GET"),
                    ("Access-Control-Request-Headers", "authorization,last-event-id"),
                ], auth: .none)
            #expect(response.status == 204)
            #expect(response.header("Access-Control-Allow-Headers")?.contains("Last-Event-ID") == true)
            #expect(response.header("Access-Control-Max-Age") == "90")
        }
    }

    @Test("cors.origins narrows who gets the headers, on the stream too")
    func narrowed() throws {
        try withTestKura(configure: { try $0.set("cors.origins", "https://app.example, http://localhost:5173") }) {
            server in
            let listed = try server.listen("?doc=todos/t1", headers: [("Origin", "http://localhost:5173")])
            #expect(listed.head.contains("Access-Control-Allow-Origin: http://localhost:5173"))
            #expect(listed.head.contains("Vary: Origin"))
            _ = try listed.expect("connected")
            _ = try listed.expect("snapshot")
            listed.close()

            let other = try server.listen("?doc=todos/t1", headers: [("Origin", "https://evil.example")])
            #expect(!other.head.contains("Access-Control-Allow-Origin"))
            other.close()

            let health = try server.request("GET", "/api/health", headers: [("Origin", "https://evil.example")])
            #expect(health.header("Access-Control-Allow-Origin") == nil)
        }
    }

    @Test("a cors.origins value that is not a list of origins stops the configuration")
    func badSetting() {
        var configuration = KuraConfiguration()
        #expect(throws: ConfigurationError.self) { try configuration.set("cors.origins", "app.example/path") }
    }
}
