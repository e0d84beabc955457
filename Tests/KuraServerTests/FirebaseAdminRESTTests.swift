import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

@testable import KuraServer

/// The admin endpoints as raw HTTP, in the shapes the Admin SDKs (Node, Go, Java) send, for the calls the Python
/// SDK test does not make; and whom `Bearer owner` is trusted from.
@Suite("Firebase Auth REST API: admin fixtures and the owner's addresses")
struct FirebaseAdminRESTTests {
    let base = "\(v1)/projects/\(firebaseProject)"

    @Test("create, query, link, apply the link's code, batch delete")
    func adminFixtures() throws {
        try withFirebaseKura { kura in
            let owner = TestKura.Auth.header("Bearer owner")
            let created = try kura.request(
                "POST", "\(base)/accounts",
                json: ["localId": "fixture-uid", "email": "fixture@example.com", "displayName": "Fixture"], auth: owner)
            #expect(created.status == 200, "\(created)")
            #expect(created.json["localId"] as? String == "fixture-uid")
            let duplicate = try kura.request(
                "POST", "\(base)/accounts", json: ["localId": "fixture-uid", "email": "other@example.com"], auth: owner)
            #expect(duplicate.errorCode == "DUPLICATE_LOCAL_ID", "\(duplicate)")

            let query = try kura.request(
                "POST", "\(base)/accounts:query",
                json: ["returnUserInfo": true, "expression": [["email": "fixture@example.com"]]], auth: owner)
            #expect(query.json["recordsCount"] as? String == "1", "\(query)")
            let info = try #require((query.json["userInfo"] as? [[String: Any]])?.first)
            #expect(info["displayName"] as? String == "Fixture")
            #expect(info["emailVerified"] as? Bool == false)

            let link = try kura.request(
                "POST", "\(base)/accounts:sendOobCode",
                json: ["requestType": "VERIFY_EMAIL", "email": "fixture@example.com", "returnOobLink": true],
                auth: owner)
            #expect(link.status == 200, "\(link)")
            let code = try #require(link.json["oobCode"] as? String)
            #expect(queryItem(try #require(link.json["oobLink"] as? String), "code") == code)
            // An administrator's link mails nothing.
            #expect(try kura.oobCodes("fixture@example.com", "VERIFY_EMAIL").isEmpty)
            let applied = try kura.firebase("\(v1)/accounts:update", ["oobCode": code])
            #expect(applied.json["emailVerified"] as? Bool == true, "\(applied)")

            let claims = try kura.request(
                "POST", "\(base)/accounts:update",
                json: ["localId": "fixture-uid", "customAttributes": #"{"role":"editor"}"#], auth: owner)
            #expect(claims.status == 200, "\(claims)")
            let forbidden = try kura.request(
                "POST", "\(base)/accounts:update",
                json: ["localId": "fixture-uid", "customAttributes": #"{"sub":"x"}"#], auth: owner)
            #expect(forbidden.status == 400)
            #expect(forbidden.errorCode == "INVALID_CLAIMS", "\(forbidden)")
            let lookup = try kura.request(
                "POST", "\(base)/accounts:lookup", json: ["localId": ["fixture-uid"]], auth: owner)
            let record = try #require((lookup.json["users"] as? [[String: Any]])?.first)
            #expect(record["customAttributes"] as? String == #"{"role":"editor"}"#)

            let deleted = try kura.request(
                "POST", "\(base)/accounts:batchDelete", json: ["localIds": ["fixture-uid", "missing"], "force": true],
                auth: owner)
            #expect(deleted.status == 200, "\(deleted)")
            #expect(deleted.json["errors"] == nil)
            #expect(try kura.kura.auth.listUsers().users.isEmpty)
        }
    }

    @Test(
        "whom 'Bearer owner' is trusted from",
        arguments: [
            ("127.0.0.1", [String](), false, true), ("127.8.9.10", [], false, true), ("::1", [], false, true),
            ("::ffff:127.0.0.1", [], false, true), ("192.0.2.7", [], false, false),
            ("192.0.2.7", ["192.0.2.7"], false, true),
            ("127.0.0.1", [], true, false), ("::ffff:192.0.2.7", [], false, false),
        ])
    func ownerAddresses(address: String, listed: [String], forwarded: Bool, trusted: Bool) {
        var compat = CompatConfiguration()
        compat.firebaseAuth = true
        compat.ownerAddresses = listed
        #expect(compat.trustsOwner(from: address, forwarded: forwarded) == trusted)
        compat.firebaseAuth = false
        #expect(!compat.trustsOwner(from: address, forwarded: forwarded))
    }
}
