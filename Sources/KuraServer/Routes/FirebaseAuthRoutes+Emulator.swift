import KuraAuth
import KuraCore
import KuraHTTP
import KuraMail
import KuraModel

/// The Auth emulator's own endpoints that test tools call, for the administrator (`Bearer owner` from loopback
/// included): the action codes mailed so far, and "delete every account", which Kura allows in development mode
/// (`kura serve --dev`) only.
extension FirebaseAuthRoutes {
    func registerEmulator(on router: Router<KuraContext>) {
        let routes = self
        let base = "/emulator/v1/projects/:project"
        router.get("\(base)/oobCodes", handler(admin: true) { try routes.oobCodes($0) })
        router.delete("\(base)/accounts", handler(admin: true) { try routes.resetAccounts($0) })
    }

    /// `{oobCodes: [{email, oobCode, oobLink, requestType}]}`, oldest first: the action links in the outbox (the
    /// newest 1000 mails; codes are stored hashed, so the mails are where they can be read back). A code listed
    /// here may have been used since.
    func oobCodes(_ call: Call) throws -> JSONValue {
        var codes: [JSONValue] = []
        for entry in try outbox.list(limit: 1000).reversed() {
            guard let link = entry.actionLink, let query = link.split(separator: "?", maxSplits: 1).last else {
                continue
            }
            var mode = ""
            var code = ""
            for pair in query.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                if parts[0] == "mode" { mode = String(parts[1]) }
                if parts[0] == "code" { code = PercentDecoding.decode(parts[1]) ?? "" }
            }
            let type: String
            switch mode {
            case "verifyEmail": type = "VERIFY_EMAIL"
            case "resetPassword": type = "PASSWORD_RESET"
            default: continue
            }
            codes.append(
                [
                    "email": .string(entry.recipient), "oobCode": .string(code), "oobLink": .string(link),
                    "requestType": .string(type),
                ])
        }
        return ["oobCodes": .array(codes)]
    }

    /// Deletes every account, in development mode only; otherwise 400 `FAILED_PRECONDITION`, since on a real
    /// server "reset the emulator" would mean losing every user.
    func resetAccounts(_ call: Call) throws -> JSONValue {
        guard developmentMode else {
            throw FirebaseWire.error(
                "FAILED_PRECONDITION", "deleting every account is allowed in development mode (kura serve --dev) only")
        }
        while true {
            let page = try auth.listUsers(pageSize: 1000)
            if page.users.isEmpty { break }
            for user in page.users {
                do { try auth.deleteUser(uid: user.uid) } catch let error as APIError where error.code == .userNotFound
                {}
            }
        }
        return .object([:])
    }
}
