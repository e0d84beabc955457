import Foundation
import KuraCore
import KuraModel
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Password-reset requests for known and unknown addresses take the same path before the answer: both are
/// handed off (`AddressMailRequests.submitted` counts each once) and answered before the account lookup, the
/// action code and the mail, which the held queue shows have not happened yet when the answer arrives.
@Suite struct AuthPasswordResetShapeTests {
    @Test("known and unknown addresses are answered before any lookup, code or mail")
    func sameShape() throws {
        try withAuthKura { server in
            try server.signUp("ann@example.com")
            let mailsBefore = try server.outbox().count
            server.kura.addressMails.hold()
            for address in ["ann@example.com", "nobody@example.com"] {
                let response = try server.request(
                    "POST", "/api/auth/password-reset", json: ["email": address], auth: .none)
                #expect(response.status == 200 && response.body == "{}", "\(response)")
            }
            #expect(server.kura.addressMails.submitted == 2)
            #expect(server.kura.addressMails.finished == 0)
            // The known address's mail is not written yet.
            #expect(try server.outbox(settle: false).count == mailsBefore)

            server.kura.addressMails.release()
            #expect(waitUntil(timeout: 10) { server.kura.addressMails.finished == 2 })
            let mails = try server.outbox()
            #expect(mails.count == mailsBefore + 1)
            #expect(mails.first?["to"] as? String == "ann@example.com")
            _ = try server.heldLink(to: "ann@example.com", mode: "resetPassword")
        }
    }

    @Test("a malformed address is refused on both paths alike, before anything is handed off")
    func malformed() throws {
        try withAuthKura { server in
            expectError(
                try server.request("POST", "/api/auth/password-reset", json: ["email": "not-an-address"], auth: .none),
                400, .invalidEmail)
            #expect(server.kura.addressMails.submitted == 0)
        }
    }
}
