import KuraCore
import KuraModel
import Testing

@testable import KuraAuth

@Suite struct EmailAddressTests {
    @Test(arguments: [
        ("ann@example.com", "ann@example.com", "ann@example.com"),
        ("  Ann@Example.COM\n", "Ann@example.com", "ann@example.com"),
        ("first.last+tag@sub.example.co.uk", "first.last+tag@sub.example.co.uk", "first.last+tag@sub.example.co.uk"),
        ("o'brien@xn--bcher-kva.example", "o'brien@xn--bcher-kva.example", "o'brien@xn--bcher-kva.example"),
        ("A_B-C@EX-AMPLE.IO", "A_B-C@ex-ample.io", "a_b-c@ex-ample.io"),
    ])
    func valid(raw: String, value: String, key: String) throws {
        let address = try EmailAddress(raw)
        #expect(address.value == value)
        #expect(address.key == key)
    }

    @Test(arguments: [
        "", "   ", "plain", "@example.com", "ann@", "ann@@example.com", "a@b@example.com", "ann@localhost",
        ".ann@example.com", "ann.@example.com", "an..n@example.com", "ann@-example.com", "ann@example-.com",
        "ann@example..com", "ann@1.2.3.4", "ann smith@example.com", "ann@exa_mple.com", "ånn@example.com",
        "\"ann\"@example.com", "ann@[127.0.0.1]", String(repeating: "a", count: 65) + "@example.com",
        "ann@" + String(repeating: "a", count: 64) + ".com",
    ])
    func invalid(raw: String) {
        expectError(.invalidEmail, 400) { _ = try EmailAddress(raw) }
    }

    @Test func uniquenessIsCaseInsensitive() throws {
        let f = try Fixture()
        try f.signUp("Ann@Example.com")
        for variant in ["ann@example.com", "ANN@EXAMPLE.COM", " aNn@example.COM "] {
            expectError(.emailExists, 400) { try f.signUp(variant) }
        }
        #expect(try f.auth.signIn(email: "ANN@example.COM", password: "secret-pw").user.email == "Ann@example.com")
    }
}
