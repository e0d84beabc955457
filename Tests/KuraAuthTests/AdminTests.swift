import KuraCore
import KuraModel
import Testing

@testable import KuraAuth

@Suite struct AdminTests {
    @Test func listUsersPages() throws {
        let f = try Fixture()
        var uids: [String] = []
        for i in 0..<5 { uids.append(try f.auth.createUser(email: "u\(i)@example.com", password: "secret-pw").uid) }
        var seen: [String] = []
        var token: String? = nil
        repeat {
            let page = try f.auth.listUsers(pageToken: token, pageSize: 2)
            #expect(page.users.count <= 2)
            seen += page.users.map(\.uid)
            token = page.nextPageToken
        } while token != nil
        #expect(seen == uids.sorted())
        expectError(.invalidArgument, 400) { _ = try f.auth.listUsers(pageToken: "!!", pageSize: 2) }
        #expect(try f.auth.listUsers().json.objectValue?["nextPageToken"] == nil)
    }

    @Test func getUpdateDelete() throws {
        let f = try Fixture()
        let user = try f.auth.createUser(email: "Root@Example.com", password: "secret-pw", admin: true)
        #expect(user.emailVerified && user.customClaims == ["admin": true] && user.email == "Root@example.com")
        #expect(try f.auth.user(uid: user.uid) == user)
        expectError(.userNotFound, 404) { _ = try f.auth.user(uid: "missing") }
        expectError(.userNotFound, 404) {
            _ = try f.auth.updateUser(uid: "missing", AdminUserUpdate(disabled: true))
        }
        expectError(.userNotFound, 404) { try f.auth.deleteUser(uid: "missing") }
        expectError(.userNotFound, 404) { try f.auth.revokeSessions(uid: "missing") }
        expectError(.emailExists, 400) { _ = try f.auth.createUser(email: "root@example.com", password: "secret-pw") }

        let updated = try f.auth.updateUser(
            uid: user.uid, AdminUserUpdate(customClaims: ["role": "editor", "level": 3], emailVerified: false))
        #expect(updated.customClaims == ["role": "editor", "level": 3] && !updated.emailVerified)
        let token = try f.auth.signIn(email: "root@example.com", password: "secret-pw").idToken
        let claims = try f.auth.verifyIDToken(token)
        #expect(claims.customClaims["role"] == "editor" && !claims.isAdmin)
        expectError(.invalidClaims, 400) {
            _ = try f.auth.updateUser(uid: user.uid, AdminUserUpdate(customClaims: ["sub": "someone-else"]))
        }
        expectError(.invalidClaims, 400) {
            _ = try f.auth.updateUser(
                uid: user.uid, AdminUserUpdate(customClaims: ["big": .string(String(repeating: "x", count: 1000))]))
        }
        try f.auth.deleteUser(uid: user.uid)
        expectError(.invalidIDToken, 401) { _ = try f.auth.verifyIDToken(token) }
        expectError(.userNotFound, 404) { _ = try f.auth.user(uid: user.uid) }
    }

    @Test func adminPasswordChangeAndRevoke() throws {
        let f = try Fixture()
        let result = try f.signUp()
        _ = try f.auth.verifyIDToken(result.idToken)
        try f.auth.revokeSessions(uid: result.user.uid)
        expectError(.invalidIDToken, 401) { _ = try f.auth.verifyIDToken(result.idToken) }
        let again = try f.auth.signIn(email: "ann@example.com", password: "secret-pw")
        _ = try f.auth.updateUser(uid: result.user.uid, AdminUserUpdate(password: "admin-set"))
        expectError(.invalidIDToken, 401) { _ = try f.auth.verifyIDToken(again.idToken) }
        _ = try f.auth.signIn(email: "ann@example.com", password: "admin-set")
    }
}
