import Foundation
internal import KuraModel

/// The parts of a link from a verification or password-reset mail
/// (`<publicURL>/auth/action?mode=verifyEmail|resetPassword&code=…`), as Firebase's `ActionCodeURL`: an app that
/// opens such links itself passes `code` to `Auth.applyActionCode(_:)` or
/// `Auth.confirmPasswordReset(withCode:newPassword:)`.
public struct ActionCodeURL: Sendable, Equatable {
    /// What the link is for.
    public enum Operation: Sendable, Equatable {
        /// Confirms an address (also a pending address change): `applyActionCode(_:)`.
        case verifyEmail
        /// Sets a new password: `confirmPasswordReset(withCode:newPassword:)`.
        case passwordReset
        /// A mode this SDK does not know.
        case unknown
    }

    /// What the link is for, from its `mode`.
    public let operation: Operation
    /// The action code.
    public let code: String

    /// The link's parts, or `nil` when `link` is not a URL with a `code`.
    public init?(link: String) {
        guard let items = URLComponents(string: link)?.queryItems,
            let code = items.first(where: { $0.name == "code" })?.value, !code.isEmpty
        else { return nil }
        self.code = code
        switch items.first(where: { $0.name == "mode" })?.value {
        case "verifyEmail": operation = .verifyEmail
        case "resetPassword": operation = .passwordReset
        default: operation = .unknown
        }
    }
}
