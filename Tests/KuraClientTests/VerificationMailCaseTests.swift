import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

@testable import KuraClient

/// Tests/Cases/verification-mail.json: when `sendEmailVerification` sends and when it does not after a sign-up that
/// mailed a link. kura.js runs the same cases (Tests/Browser/suite_auth.py).
@Suite struct VerificationMailCaseTests {
    struct Case: Decodable, CustomStringConvertible, Sendable {
        var name: String
        var sendVerificationOnSignUp: Bool
        /// Each step: the action and the number of mails to the address after it.
        var steps: [[StepPart]]
        var description: String { name }
    }

    enum StepPart: Decodable, Sendable {
        case action(String)
        case mails(Int)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let count = try? container.decode(Int.self) {
                self = .mails(count)
            } else {
                self = .action(try container.decode(String.self))
            }
        }
    }

    struct File: Decodable {
        var cases: [Case]
    }

    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Cases/verification-mail.json")

    static func load() throws -> [Case] {
        try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).cases
    }

    @Test(arguments: try load())
    func verificationMailCase(_ test: Case) async throws {
        try await withServer(configure: { $0.auth.sendVerificationOnSignUp = test.sendVerificationOnSignUp }) {
            server in
            let kura = makeClient(server)
            let email = uniqueEmail()
            for (index, step) in test.steps.enumerated() {
                guard step.count == 2, case .action(let action) = step[0], case .mails(let expected) = step[1] else {
                    Issue.record("step \(index + 1) of \(test.name) is not [action, mails]")
                    return
                }
                switch action {
                case "signUp": try await kura.auth.createUser(withEmail: email, password: "secret-pw")
                case "signIn": try await kura.auth.signIn(withEmail: email, password: "secret-pw")
                case "signOut": try await kura.auth.signOut()
                case "sendEmailVerification": try await #require(kura.auth.currentUser).sendEmailVerification()
                default:
                    Issue.record("unknown action \(action)")
                    return
                }
                #expect(try await server.mails(to: email).count == expected, "after step \(index + 1) (\(action))")
            }
        }
    }
}
