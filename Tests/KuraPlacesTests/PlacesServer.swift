import Foundation
import KuraServer
import KuraServerTestSupport
import KuraTestSupport

// The only file of this target that sees the server's modules (both have a type named `Kura`).

/// A fresh in-process server with the places rules and an admin account `admin@example.com` / `secret-pw`;
/// `body` gets its port. The server is removed afterwards.
func withPlacesServer<T>(_ body: (Int) async throws -> T) async throws -> T {
    let rules = "rules_version = '1';\n" + (try String(contentsOf: PlacesFiles.rules, encoding: .utf8))
    return try await withTestKura(rules: rules, configure: { $0.useSDKTestSettings() }) { server in
        try await offPool {
            _ = try server.kura.auth.createUser(email: "admin@example.com", password: "secret-pw", admin: true)
            _ = try server.kura.auth.createUser(email: "user@example.com", password: "secret-pw", admin: false)
        }
        return try await body(server.port)
    }
}
