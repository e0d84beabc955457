/// What an action code is for, as Firebase's `ActionCodeOperation`.
public enum ActionCodeOperation: Sendable, Equatable {
    /// Confirms the account's address: `Auth.applyActionCode(_:)`.
    case verifyEmail
    /// Sets a new password: `Auth.confirmPasswordReset(withCode:newPassword:)`.
    case passwordReset
    /// Changes the account's address to `ActionCodeInfo.email`: `Auth.applyActionCode(_:)`.
    case verifyAndChangeEmail
    /// An operation this SDK does not know.
    case unknown

    init(serverName: String?) {
        switch serverName {
        case "VERIFY_EMAIL": self = .verifyEmail
        case "PASSWORD_RESET": self = .passwordReset
        case "VERIFY_AND_CHANGE_EMAIL": self = .verifyAndChangeEmail
        default: self = .unknown
        }
    }
}

/// What `Auth.checkActionCode(_:)` finds about a valid code, as Firebase's `ActionCodeInfo`.
public struct ActionCodeInfo: Sendable, Equatable {
    /// What the code is for.
    public let operation: ActionCodeOperation
    /// The address the code confirms: the account's, or the new one for `.verifyAndChangeEmail`.
    public let email: String
    /// For `.verifyAndChangeEmail`, the account's address now, which the code replaces; else `nil`.
    public let previousEmail: String?
}
