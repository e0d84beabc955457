import Foundation
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// This machine's first IPv4 address that is not loopback, if it has one: a connection from it to 127.0.0.1 reaches
/// the server with a peer address that is not loopback.
func nonLoopbackAddress() -> String? {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0, let first = list else { return nil }
    defer { freeifaddrs(list) }
    var entry: UnsafeMutablePointer<ifaddrs>? = first
    while let current = entry {
        defer { entry = current.pointee.ifa_next }
        guard let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else {
            continue
        }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        let ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        var copy = ipv4
        guard inet_ntop(AF_INET, &copy, &text, socklen_t(INET_ADDRSTRLEN)) != nil else { continue }
        let string = String(cString: text)
        if !string.hasPrefix("127.") { return string }
    }
    return nil
}

@Suite("Firebase Auth REST API: the Admin SDKs' endpoints and 'Bearer owner'")
struct FirebaseAdminTests {
    let accounts = "\(v1)/projects/\(firebaseProject)/accounts"

    @Test("'Bearer owner' from loopback is the administrator on the Firebase admin endpoints, nowhere else")
    func ownerFromLoopback() throws {
        try withFirebaseKura { kura in
            let created = try kura.request(
                "POST", accounts, json: ["email": "ada@example.com", "password": "secret-pw"],
                auth: .header("Bearer owner"))
            #expect(created.status == 200, "\(created)")
            let uid = try #require(created.json["localId"] as? String)
            let lookup = try kura.request(
                "POST", "\(accounts):lookup", json: ["localId": [uid]], auth: .header("Bearer owner"))
            #expect((lookup.json["users"] as? [[String: Any]])?.first?["email"] as? String == "ada@example.com")
            // Through a reverse proxy on this machine, the peer is loopback but the client is not.
            let proxied = try kura.request(
                "POST", "\(accounts):lookup", json: ["localId": [uid]],
                headers: [("X-Forwarded-For", "203.0.113.9")], auth: .header("Bearer owner"))
            #expect(proxied.status == 401)
            #expect(proxied.errorCode == "UNAUTHENTICATED", "\(proxied)")
            // Kura's own admin API does not know the emulator credential: it is no ID token.
            let own = try kura.request("GET", "/api/admin/users", auth: .header("Bearer owner"))
            #expect(own.status == 401)
            #expect(own.errorCode == "INVALID_ID_TOKEN", "\(own)")
            // Nor does another project's path take it.
            let other = try kura.request(
                "POST", "\(v1)/projects/other-project/accounts:lookup", json: ["localId": [uid]],
                auth: .header("Bearer owner"))
            #expect(other.status == 400)
            #expect(other.errorCode == "PROJECT_NOT_FOUND", "\(other)")
        }
    }

    @Test(
        "'Bearer owner' from an address that is not loopback is refused, unless compat.ownerAddresses lists it",
        .enabled(if: nonLoopbackAddress() != nil, "this machine has no address besides loopback"))
    func ownerFromElsewhere() throws {
        let address = try #require(nonLoopbackAddress())
        for listed in [false, true] {
            try withFirebaseKura(configure: { if listed { $0.compat.ownerAddresses = [address] } }) { kura in
                let client = try kura.client(source: address)
                let answer = try client.request(
                    "POST", "\(accounts):lookup", json: ["localId": ["x"]], auth: .header("Bearer owner"))
                if listed {
                    #expect(answer.status == 200, "\(answer)")
                } else {
                    #expect(answer.status == 401, "\(answer)")
                    #expect(answer.errorCode == "UNAUTHENTICATED", "\(answer)")
                    // The admin key still works from there.
                    let keyed = try client.request("POST", "\(accounts):lookup", json: ["localId": ["x"]])
                    #expect(keyed.status == 200, "\(keyed)")
                }
            }
        }
    }

    @Test("the emulator's reset deletes every account in development mode only")
    func reset() throws {
        for development in [false, true] {
            try withFirebaseKura(configure: { $0.developmentMode = development }) { kura in
                _ = try kura.signUp("ada@example.com")
                let answer = try kura.request(
                    "DELETE", "/emulator/v1/projects/\(firebaseProject)/accounts", auth: .header("Bearer owner"))
                let left = try kura.kura.auth.listUsers().users.count
                if development {
                    #expect(answer.status == 200, "\(answer)")
                    #expect(left == 0)
                } else {
                    #expect(answer.status == 400, "\(answer)")
                    #expect(answer.errorCode == "FAILED_PRECONDITION")
                    #expect(left == 1)
                }
            }
        }
    }

    @Test("the Python Admin SDK (firebase-admin) in emulator mode, against Kura")
    func pythonAdminSDK() throws {
        try withFirebaseKura { kura in
            // An ID token from Kura's own sign-in, for the SDK to verify.
            let session = try kura.signUp("signed-in@example.com")
            let (status, text) = try runToEnd(
                URL(fileURLWithPath: try TestEnvironment.python()),
                [
                    TestEnvironment.repositoryRoot + "/Tests/Support/firebase_admin_check.py", session.idToken,
                    session.uid,
                ],
                environment: [
                    "FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:\(kura.port)", "GOOGLE_CLOUD_PROJECT": firebaseProject,
                ])
            #expect(status == 0, "\(text)")
            #expect(text.contains("all admin checks passed"), "\(text)")
        }
    }
}
