import KuraCore
import KuraHTTP
import KuraModel

/// Which `continueUrl`s an action mail may carry: the page the action page leads back to once the address is
/// confirmed or the password changed (Firebase's `ActionCodeSettings.url`). Only http(s) URLs on this server's own
/// origin (`auth.publicURL`, or the bound address; on the loopback interface, by any of its names) or on an origin
/// `cors.origins` lists, so that a mail link cannot be made to send its reader to someone else's site. The action
/// page checks again when it shows the link, since a link's query can be edited by anyone who holds it.
struct ContinueURLPolicy: Sendable {
    let publicURL: PublicURL
    let corsOrigins: CORSPolicy.Origins
    /// The longest `continueUrl` accepted, in bytes (`auth.maxContinueURLBytes`).
    let maxLength: Int

    /// `raw` when it may be a continue URL; throws 400 `INVALID_CONTINUE_URI` (not an absolute http(s) URL, too
    /// long, userinfo or control characters) or 400 `UNAUTHORIZED_DOMAIN` (another origin).
    func check(_ raw: String) throws -> String {
        guard raw.utf8.count <= maxLength, let origin = Self.origin(of: raw) else {
            throw APIError.badRequest(
                "continueUrl must be an absolute http or https URL", code: .invalidContinueURI)
        }
        guard allowedOrigins.contains(origin) else {
            throw APIError.badRequest(
                "continueUrl's origin \(origin) is neither this server's nor one that cors.origins lists",
                code: .unauthorizedDomain)
        }
        return raw
    }

    /// Whether `raw` is a continue URL this server would have put in a mail.
    func allows(_ raw: String) -> Bool { (try? check(raw)) != nil }

    private var allowedOrigins: Set<String> {
        var origins: Set<String> = []
        if let own = Self.origin(of: publicURL.value) {
            origins.insert(own)
            // A server on the loopback interface is reached as localhost, 127.0.0.1 or [::1] alike (development).
            let loopback = ["localhost", "127.0.0.1", "[::1]"]
            for host in loopback where own.hasPrefix("http://\(host)") {
                let port = own.dropFirst("http://\(host)".count)
                guard port.isEmpty || port.hasPrefix(":") else { continue }
                for other in loopback { origins.insert("http://\(other)\(port)") }
            }
        }
        if case .only(let listed) = corsOrigins {
            for origin in listed { if let normalized = Self.origin(of: origin) { origins.insert(normalized) } }
        }
        return origins
    }

    /// `scheme://host[:port]` of an absolute http(s) URL, lower case and without the scheme's default port; nil
    /// for anything else.
    static func origin(of raw: String) -> String? {
        guard raw.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "\\") })
        else { return nil }
        let lower = raw.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") {
            scheme = "https"
        } else if lower.hasPrefix("http://") {
            scheme = "http"
        } else {
            return nil
        }
        let rest = lower.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var host = String(authority)
        if let colon = host.lastIndex(of: ":"), !host[colon...].contains("]") {
            let port = host[host.index(after: colon)...]
            guard port.isEmpty || (port.count <= 5 && port.allSatisfy(\.isASCIIDigit)) else { return nil }
            if port.isEmpty || (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
                host = String(host[..<colon])
            }
        }
        guard !host.isEmpty, !host.hasPrefix(":") else { return nil }
        return "\(scheme)://\(host)"
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
