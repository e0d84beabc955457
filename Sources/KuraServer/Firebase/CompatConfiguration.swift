import KuraAuth
import KuraCore

/// Compatibility with other backends' wire protocols (`compat.*`), off by default.
public struct CompatConfiguration: Sendable {
    /// Serve Firebase Auth's REST API as the Auth emulator speaks it (docs/firebase.md). Default `false`.
    public var firebaseAuth = false
    /// The Firebase project id the apps are configured with: ID tokens carry `aud` = it and
    /// `iss` = `https://securetoken.google.com/<it>`. Needed when `firebaseAuth` is on.
    public var firebaseProjectId = ""
    /// Peer addresses besides loopback from which `Authorization: Bearer owner` (what the Admin SDKs send in
    /// emulator mode) is honoured as the administrator. Default none.
    public var ownerAddresses: [String] = []

    public init() {}

    /// The issuer of ID tokens while `firebaseAuth` is on.
    var firebaseIssuer: String { "https://securetoken.google.com/" + firebaseProjectId }

    /// Whether `Authorization: Bearer owner` from `address` (a request's peer) is the administrator: from
    /// loopback or a listed address, and only while `firebaseAuth` is on. A `forwarded` request (one with
    /// `Forwarded`, `X-Forwarded-For` or `X-Real-IP`) came through a proxy, whose own address says nothing of the
    /// client's: a reverse proxy on the same machine would otherwise make every client loopback.
    func trustsOwner(from address: String, forwarded: Bool) -> Bool {
        guard firebaseAuth, !forwarded else { return false }
        var peer = address.lowercased()
        // An IPv4 client of a dual-stack socket shows as an IPv4-mapped IPv6 address.
        if peer.hasPrefix("::ffff:"), peer.contains(".") { peer.removeFirst("::ffff:".count) }
        return KuraConfiguration.isLoopback(peer) || ownerAddresses.contains { $0.lowercased() == peer }
    }

    /// Checks the project id: Firebase's are 6–30 lower-case letters, digits and hyphens; any such string of 1–100
    /// characters is accepted here (`demo-*` ids of emulator projects included).
    static func validProjectId(_ id: String) -> Bool {
        (1...100).contains(id.utf8.count)
            && id.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
    }
}

extension KuraConfiguration {
    /// The configuration a node runs with: with `compat.firebaseAuth`, every ID token is a Firebase one (issuer,
    /// audience and claims), so that Kura's own API and rules accept the tokens the Firebase endpoints hand out and
    /// the Admin SDKs accept Kura's. Throws when `compat.firebaseAuth` is on without a valid project id.
    func resolvingCompat() throws -> KuraConfiguration {
        guard compat.firebaseAuth else { return self }
        guard CompatConfiguration.validProjectId(compat.firebaseProjectId) else {
            throw ConfigurationError(
                "compat.firebaseAuth needs compat.firebaseProjectId: the Firebase project id of the apps (lower-case "
                    + "letters, digits and hyphens), got '\(compat.firebaseProjectId)'")
        }
        var resolved = self
        resolved.auth.issuer = compat.firebaseIssuer
        resolved.auth.audience = compat.firebaseProjectId
        resolved.auth.firebaseClaims = true
        return resolved
    }
}
