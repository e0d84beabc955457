import Foundation

extension KuraConfiguration {
    /// `kura serve --dev`: the development loop. Auth rate limits off, held mails printed whole to standard output
    /// (with no `smtp.url`, every mail is held), unexpected errors' details in their 500 answers, and
    /// `developmentMode` (the Firebase Auth emulator's account reset).
    ///
    /// Development mode answers with internals and lets anyone guess passwords at full speed, so it only serves
    /// loopback: any other `host` is refused with a `ConfigurationError`.
    public mutating func applyDevelopmentMode() throws {
        guard Self.isLoopback(http.host) else {
            throw ConfigurationError(
                "--dev serves loopback only (127.0.0.1, ::1 or localhost); host '\(http.host)' is not a loopback address"
            )
        }
        developmentMode = true
        auth.rateLimits.enabled = false
        http.verboseErrors = true
        mail.printHeld = { text in
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }

    /// `true` for `localhost`, `127.0.0.0/8` and `::1` (also written in full or in brackets).
    static func isLoopback(_ host: String) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { octet in UInt8(octet).map { _ in true } ?? false }
    }
}
