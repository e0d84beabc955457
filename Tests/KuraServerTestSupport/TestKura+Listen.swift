import Foundation
import KuraTestSupport

extension TestKura {
    /// Opens `GET /api/listen` (with `query`, e.g. `?doc=…`) authenticated as `auth`.
    public func listen(
        _ query: String = "", auth: Auth = .admin, headers: [(String, String)] = [], receiveBuffer: Int32? = nil
    ) throws -> SSEClient {
        let all = APIRequest("GET", json: nil, body: nil, headers: headers, auth: auth, adminKey: adminKey).headers
        return try SSEClient(port: port, path: "/api/listen" + query, headers: all, receiveBuffer: receiveBuffer)
    }

    /// `POST /api/listen/{connection}`.
    public func listenPost(_ connection: String, _ body: [String: Any], auth: Auth = .admin) throws -> HTTPResponse {
        try request("POST", "/api/listen/\(connection)", json: body, auth: auth)
    }
}

/// Percent-encodes a query parameter value.
public func urlEncode(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
}

/// `?query=…` for a query body.
public func queryParameter(_ query: [String: Any]) -> String {
    urlEncode(String(decoding: JSON.encode(query), as: UTF8.self))
}
