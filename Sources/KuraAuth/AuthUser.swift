import KuraCore
import KuraModel

/// An account as the API shows it (never the password hash).
public struct AuthUser: Sendable, Equatable {
    public var uid: String
    public var email: String
    public var emailVerified: Bool
    public var displayName: String?
    /// Microseconds since the epoch.
    public var createTime: Int64
    public var disabled: Bool
    public var customClaims: JSONObject
    /// Microseconds since the epoch, `nil` before the first sign-in. Not in `json`.
    public var lastSignInTime: Int64?

    init(_ record: AccountRecord) {
        uid = record.uid
        email = record.email
        emailVerified = record.emailVerified
        displayName = record.displayName
        createTime = record.createTime
        disabled = record.disabled
        customClaims = record.customClaims
        lastSignInTime = record.lastSignInTime
    }

    /// `{uid,email,emailVerified,displayName,createTime (RFC 3339),disabled,customClaims}`.
    public var json: JSONValue {
        [
            "uid": .string(uid), "email": .string(email), "emailVerified": .bool(emailVerified),
            "displayName": displayName.map(JSONValue.string) ?? .null,
            "createTime": .string(RFC3339.format(createTime)), "disabled": .bool(disabled),
            "customClaims": .object(customClaims),
        ]
    }

    /// `json` plus what only administrators see: `lastSignInTime` (RFC 3339, `null` before the first sign-in).
    public var adminJSON: JSONValue {
        guard case .object(var object) = json else { return json }
        object["lastSignInTime"] = lastSignInTime.map { .string(RFC3339.format($0)) } ?? .null
        return .object(object)
    }
}

/// What sign-up, sign-in and refresh return.
public struct AuthResult: Sendable {
    public var user: AuthUser
    /// The signed ID token (JWT); empty when no session was started (`isSignedIn`).
    public var idToken: String
    /// The new opaque refresh token; empty when no session was started.
    public var refreshToken: String
    /// ID-token lifetime in seconds.
    public var expiresIn: Int64
    /// Sign-up only: the email-verification code to mail (nil when `sendVerificationOnSignUp` is off). Not in `json`.
    public var verificationCode: String?

    /// Whether a session was started: a sign-up with `requireVerifiedEmail` creates the account only.
    public var isSignedIn: Bool { !idToken.isEmpty }

    /// An account created without a session (its address must be verified first).
    static func accountOnly(_ user: AuthUser) -> AuthResult {
        AuthResult(user: user, idToken: "", refreshToken: "", expiresIn: 0)
    }

    /// `{user,idToken,refreshToken,expiresIn}`, or `{user}` without a session.
    public var json: JSONValue {
        guard isSignedIn else { return ["user": user.json] }
        return [
            "user": user.json, "idToken": .string(idToken), "refreshToken": .string(refreshToken),
            "expiresIn": .int(expiresIn),
        ]
    }
}

/// A change to the signed-in user's own account. `nil` fields are left alone.
public struct ProfileUpdate: Sendable {
    /// `.some(nil)` clears the display name.
    public var displayName: String??
    /// A new password (needs a recent sign-in; signs out every other session).
    public var password: String?
    /// A new address: not applied now — a `.changeEmail` code is made for it (needs a recent sign-in).
    public var email: String?

    public init(displayName: String?? = nil, password: String? = nil, email: String? = nil) {
        self.displayName = displayName
        self.password = password
        self.email = email
    }
}

/// Result of `AuthService.updateProfile`.
public struct ProfileUpdateResult: Sendable {
    public var user: AuthUser
    /// When the email is to change: the code to mail to `pendingEmail`.
    public var emailChangeCode: String?
    /// The normalised new address awaiting confirmation.
    public var pendingEmail: String?
}

/// An administrator's change to an account. `nil` fields are left alone.
public struct AdminUserUpdate: Sendable {
    public var disabled: Bool?
    /// Replaces all custom claims (at most 1000 bytes of JSON; reserved claim names refused).
    public var customClaims: JSONObject?
    public var emailVerified: Bool?
    /// `.some(nil)` clears the display name.
    public var displayName: String??
    public var email: String?
    public var password: String?

    public init(
        disabled: Bool? = nil, customClaims: JSONObject? = nil, emailVerified: Bool? = nil,
        displayName: String?? = nil, email: String? = nil, password: String? = nil
    ) {
        self.disabled = disabled
        self.customClaims = customClaims
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.email = email
        self.password = password
    }
}

/// One page of `AuthService.listUsers`.
public struct UserPage: Sendable {
    public var users: [AuthUser]
    /// Pass back to get the next page; `nil` on the last page.
    public var nextPageToken: String?

    /// `{users:[…],nextPageToken?}`.
    public var json: JSONValue {
        var object: JSONObject = ["users": .array(users.map(\.json))]
        if let nextPageToken { object["nextPageToken"] = .string(nextPageToken) }
        return .object(object)
    }
}
