import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension TestKura {
    /// An admin-key request through URLSession, for async tests (the SDK's and the apps' tests stay off blocking
    /// sockets) that set up and check what a client did: the status and the parsed JSON body (`nil` if empty).
    public func admin(_ method: String, _ path: String, json: Any? = nil) async throws -> (status: Int, body: Any?) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.setValue("Bearer \(adminKey)", forHTTPHeaderField: "Authorization")
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, data.isEmpty ? nil : try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }
}
