import Foundation
import KuraCore
import KuraModel
import KuraServer
import KuraStore

/// A `Kura` server for one test: port 0, its own data directory under /tmp, stopped and removed by `shutdown()`.
/// `withTestKura` is the usual way in.
final class TestKura: Sendable {
    let kura: KuraNode
    let dataDirectory: String

    /// How a request authenticates.
    enum Auth {
        /// `Authorization: Bearer <admin key>`.
        case admin
        /// No `Authorization` header.
        case none
        /// `Authorization: <value>` exactly as given.
        case header(String)
    }

    init(logger: Logger = Logger(level: .error), configure: (inout KuraConfiguration) throws -> Void = { _ in }) throws
    {
        dataDirectory = NSTemporaryDirectory() + "kura-rest-" + UUID().uuidString
        var configuration = KuraConfiguration()
        configuration.dataDirectory = dataDirectory
        configuration.http.port = 0
        configuration.http.eventLoops = 1
        try configure(&configuration)
        do {
            kura = try KuraNode(configuration: configuration, logger: logger)
            try kura.start()
        } catch {
            try? FileManager.default.removeItem(atPath: dataDirectory)
            throw error
        }
    }

    var port: Int { kura.port }
    var adminKey: String { kura.adminKey.value }
    var cache: DocumentCache { kura.store.cache }

    func shutdown() {
        kura.stop()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    /// A keep-alive client authenticated as the administrator.
    func client() throws -> APIClient { try APIClient(port: port, adminKey: adminKey) }

    /// One request on its own connection; `json` is encoded as the body.
    func request(
        _ method: String, _ target: String, json: Any? = nil, body: [UInt8]? = nil, headers: [(String, String)] = [],
        auth: Auth = .admin
    ) throws -> HTTPResponse {
        try APIClient(port: port, adminKey: adminKey).request(
            method, target, json: json, body: body, headers: headers, auth: auth)
    }

    /// `PUT /api/docs/{path}` with `{"data": data}`; requires a 200 and returns the stored document.
    @discardableResult
    func put(_ path: String, _ data: [String: Any]) throws -> HTTPResponse {
        let response = try request("PUT", "/api/docs/" + path, json: ["data": data])
        guard response.status == 200 else { throw UnexpectedResponse(response) }
        return response
    }

    /// `POST /api/commit` with the given writes; requires a 200.
    @discardableResult
    func commit(_ writes: [[String: Any]]) throws -> HTTPResponse {
        let response = try request("POST", "/api/commit", json: ["writes": writes])
        guard response.status == 200 else { throw UnexpectedResponse(response) }
        return response
    }

    /// Whether the cache holds `path` now, and at which version.
    func cachedVersion(_ path: String) throws -> Int64? { cache.lookup(try DocumentPath(path))?.version }
}

/// Runs `body` against a fresh server, then stops it and removes its data.
func withTestKura<T>(
    configure: (inout KuraConfiguration) throws -> Void = { _ in }, _ body: (TestKura) throws -> T
) throws -> T {
    let server = try TestKura(configure: configure)
    defer { server.shutdown() }
    return try body(server)
}

/// A keep-alive connection that speaks the JSON API.
final class APIClient {
    let connection: HTTPConnection
    let adminKey: String

    init(port: Int, adminKey: String, source: String? = nil) throws {
        connection = try HTTPConnection(port: port, source: source)
        self.adminKey = adminKey
    }

    func request(
        _ method: String, _ target: String, json: Any? = nil, body: [UInt8]? = nil, headers: [(String, String)] = [],
        auth: TestKura.Auth = .admin
    ) throws -> HTTPResponse {
        var all = headers
        switch auth {
        case .admin: all.append(("Authorization", "Bearer \(adminKey)"))
        case .none: break
        case .header(let value): all.append(("Authorization", value))
        }
        var bytes = body
        if let json {
            bytes = JSON.encode(json)
            all.append(("Content-Type", "application/json"))
        }
        return try connection.send(method, target, headers: all, body: bytes ?? (method == "GET" ? nil : []))
    }
}

/// A response that a helper did not expect.
struct UnexpectedResponse: Error, CustomStringConvertible {
    let response: HTTPResponse
    init(_ response: HTTPResponse) { self.response = response }
    var description: String { "unexpected response: \(response)" }
}

/// JSON for tests, through JSONSerialization.
enum JSON {
    static func encode(_ value: Any) -> [UInt8] {
        // JSONSerialization cannot write top-level fragments; tests only send objects and arrays.
        Array((try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data("null".utf8))
    }

    /// Whether two JSON values are equal (numbers compare by value; key order does not matter).
    static func equal(_ lhs: Any?, _ rhs: Any?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (let l?, let r?): return NSArray(object: l).isEqual(NSArray(object: r))
        default: return false
        }
    }
}

extension HTTPResponse {
    /// `version` of a document body.
    var version: Int? { json["version"] as? Int }
    /// `data` of a document body.
    var data: [String: Any]? { json["data"] as? [String: Any] }
    /// The `documents` of a query or list body, as their IDs.
    var documentIDs: [String] { (json["documents"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } }
    var nextPageToken: String? { json["nextPageToken"] as? String }
}
