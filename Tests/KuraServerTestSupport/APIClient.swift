import Foundation
import KuraModel
import KuraTestSupport

/// A keep-alive connection that speaks the JSON API.
public final class APIClient {
    public let connection: HTTPConnection
    public let adminKey: String

    public init(port: Int, adminKey: String, source: String? = nil) throws {
        connection = try HTTPConnection(port: port, source: source)
        self.adminKey = adminKey
    }

    /// One request on this connection; `json` is encoded as the body (with `Content-Type: application/json`).
    public func request(
        _ method: String, _ target: String, json: Any? = nil, body: [UInt8]? = nil, headers: [(String, String)] = [],
        auth: TestKura.Auth = .admin
    ) throws -> HTTPResponse {
        let parts = APIRequest(method, json: json, body: body, headers: headers, auth: auth, adminKey: adminKey)
        return try connection.send(method, target, headers: parts.headers, body: parts.body)
    }
}

/// The headers and body of a JSON API request, the same in both test modes.
struct APIRequest {
    var headers: [(String, String)]
    var body: [UInt8]?

    /// `auth`'s `Authorization` after `headers`; `json` encoded with its `Content-Type`, else `body` (an empty one
    /// for methods other than GET).
    init(
        _ method: String, json: Any?, body: [UInt8]?, headers: [(String, String)], auth: TestKura.Auth,
        adminKey: String
    ) {
        self.headers = headers
        switch auth {
        case .admin: self.headers.append(("Authorization", "Bearer \(adminKey)"))
        case .none: break
        case .header(let value): self.headers.append(("Authorization", value))
        }
        var bytes = body
        if let json {
            bytes = JSON.encode(json)
            self.headers.append(("Content-Type", "application/json"))
        }
        self.body = bytes ?? (method == "GET" ? nil : [])
    }
}

/// JSON for tests, through JSONSerialization.
public enum JSON {
    public static func encode(_ value: Any) -> [UInt8] {
        // JSONSerialization cannot write top-level fragments; tests only send objects and arrays.
        Array((try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data("null".utf8))
    }

    /// Whether two JSON values are equal (numbers compare by value; key order does not matter).
    public static func equal(_ lhs: Any?, _ rhs: Any?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (let l?, let r?): return NSArray(object: l).isEqual(NSArray(object: r))
        default: return false
        }
    }
}

extension HTTPResponse {
    /// `version` of a document body.
    public var version: Int? { json["version"] as? Int }
    /// `data` of a document body.
    public var data: [String: Any]? { json["data"] as? [String: Any] }
    /// The `documents` of a query or list body, as their IDs.
    public var documentIDs: [String] {
        (json["documents"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }
    public var nextPageToken: String? { json["nextPageToken"] as? String }
}
