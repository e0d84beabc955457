import Foundation
internal import KuraModel

/// `KuraError` as Foundation and Firebase code sees errors: `localizedDescription` is the message, and
/// `(error as NSError)` has Firebase's domain and number: `FIRAuthErrorDomain` with the `AuthErrorCode` for errors
/// of `Auth` and `User` calls, `FIRFirestoreErrorDomain` with the `FirestoreErrorCode` for every other call, so
/// `AuthErrorCode(rawValue: error._code)` and `FirestoreErrorCode(rawValue: …)` work as in Firebase code.
///
/// The domain is the error's own (`_domain`), not one per type: that is why `KuraError` is not a `CustomNSError`,
/// whose bridging to `NSError` takes the type's one `errorDomain`.
extension KuraError: LocalizedError {
    /// The message (the server's, when it answered): what `localizedDescription` shows.
    public var errorDescription: String? { message.isEmpty ? code.rawValue : message }

    /// Firebase Auth's error domain, for errors of `Auth` and `User` calls.
    public static let authErrorDomain = "FIRAuthErrorDomain"
    /// Firestore's error domain, for errors of every other call (documents, queries, batches, transactions,
    /// listeners, the offline queue), and of `KuraError`s an app creates itself.
    public static var errorDomain: String { "FIRFirestoreErrorDomain" }

    /// `(error as NSError).domain`: `authErrorDomain` for an `Auth` or `User` call's error, else `errorDomain`.
    public var errorDomain: String {
        switch service {
        case .auth: Self.authErrorDomain
        case .firestore: Self.errorDomain
        }
    }

    /// `(error as NSError).code`: the `AuthErrorCode` number for an `Auth` or `User` call's error (17999,
    /// Firebase Auth's internal error, when Auth has no code for it), else the `FirestoreErrorCode` number.
    public var errorCode: Int {
        switch service {
        case .auth: authErrorCode?.rawValue ?? 17999
        case .firestore: firestoreErrorCode.rawValue
        }
    }

    public var _domain: String { errorDomain }
    public var _code: Int { errorCode }

    /// `NSLocalizedDescriptionKey` (the message) and `"KuraErrorCode"` (the server's code, `"EMAIL_EXISTS"`).
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: errorDescription ?? "", "KuraErrorCode": code.rawValue]
    }

    /// The error as Firebase Auth would report it, or `nil` for errors Firebase Auth has no code for (permission,
    /// query and document errors). `.invalidLoginCredentials` is `.invalidCredential`: Kura does not say whether
    /// the address or the password was wrong (Firebase with email-enumeration protection does the same).
    public var authErrorCode: AuthErrorCode? {
        switch code {
        case .emailExists: .emailAlreadyInUse
        case .invalidEmail: .invalidEmail
        case .weakPassword: .weakPassword
        case .missingPassword, .invalidLoginCredentials: .invalidCredential
        case .userDisabled: .userDisabled
        case .userNotFound: .userNotFound
        case .tooManyAttemptsTryLater: .tooManyRequests
        case .credentialTooOldLoginAgain: .requiresRecentLogin
        case .invalidOOBCode: .invalidActionCode
        case .expiredOOBCode: .expiredActionCode
        case .invalidContinueURI: .invalidContinueURI
        case .unauthorizedDomain: .unauthorizedDomain
        case .tokenExpired: .userTokenExpired
        case .invalidIDToken, .invalidRefreshToken: .invalidUserToken
        case .emailNotVerified: .emailNotVerified
        case .notSignedIn: .nullUser
        case .unavailable where isNetworkFailure: .networkError
        default: nil
        }
    }

    /// The error as Firestore would report it (gRPC status codes).
    public var firestoreErrorCode: FirestoreErrorCode {
        switch code {
        case .cancelled: .cancelled
        case .malformedRequest, .invalidArgument, .invalidPath, .invalidQuery, .documentTooLarge, .payloadTooLarge,
            .headersTooLarge, .invalidEmail, .weakPassword, .missingPassword, .invalidOOBCode, .expiredOOBCode,
            .invalidContinueURI, .unauthorizedDomain,
            .invalidClaims, .emailExists, .invalidRules:
            .invalidArgument
        case .requestTimeout: .deadlineExceeded
        case .notFound, .userNotFound: .notFound
        case .alreadyExists: .alreadyExists
        case .permissionDenied, .emailNotVerified, .userDisabled, .originNotAllowed: .permissionDenied
        // A listen stream whose client fell behind ends with OVERFLOW; the SDK resumes it, so an app sees it only
        // if it reads the code itself.
        case .tooManyAttemptsTryLater, .resourceExhausted, .overflow, .insufficientStorage: .resourceExhausted
        case .aborted: .aborted
        case .failedPrecondition, .credentialTooOldLoginAgain, .expectationFailed: .failedPrecondition
        case .methodNotAllowed, .httpVersionNotSupported, .notImplemented: .unimplemented
        case .internal, .invalidResponse: .internal
        case .unavailable: .unavailable
        case .unauthenticated, .invalidIDToken, .tokenExpired, .invalidRefreshToken, .invalidLoginCredentials,
            .notSignedIn:
            .unauthenticated
        case .unknown: .unknown
        }
    }
}

/// Firebase Auth's error codes, with Firebase's numbers, for `switch AuthErrorCode(rawValue: error._code)` (or
/// `(error as? KuraError)?.authErrorCode`). Kura never reports `.wrongPassword` (a wrong password and an unknown
/// address are both `.invalidCredential`) nor `.userNotFound` for sign-in or password reset.
public enum AuthErrorCode: Int, Sendable, CaseIterable {
    case invalidCredential = 17004
    case userDisabled = 17005
    case emailAlreadyInUse = 17007
    case invalidEmail = 17008
    case wrongPassword = 17009
    case tooManyRequests = 17010
    case userNotFound = 17011
    case requiresRecentLogin = 17014
    case invalidUserToken = 17017
    case networkError = 17020
    case userTokenExpired = 17021
    case weakPassword = 17026
    case expiredActionCode = 17029
    case invalidActionCode = 17030
    case unauthorizedDomain = 17038
    case invalidContinueURI = 17044
    /// A call that needs a signed-in user had none.
    case nullUser = 17067
    /// Kura's own: the server requires verified addresses to sign in (`auth.requireVerifiedEmail`).
    case emailNotVerified = 17900

    /// Newer Firebase spells the enum `AuthErrorCode.Code`.
    public typealias Code = AuthErrorCode
}

/// Firestore's error codes (the gRPC status codes), for `FirestoreErrorCode(rawValue: error._code)` or
/// `(error as? KuraError)?.firestoreErrorCode`.
public enum FirestoreErrorCode: Int, Sendable, CaseIterable {
    case ok = 0
    case cancelled = 1
    case unknown = 2
    case invalidArgument = 3
    case deadlineExceeded = 4
    case notFound = 5
    case alreadyExists = 6
    case permissionDenied = 7
    case resourceExhausted = 8
    case failedPrecondition = 9
    case aborted = 10
    case outOfRange = 11
    case unimplemented = 12
    case `internal` = 13
    case unavailable = 14
    case dataLoss = 15
    case unauthenticated = 16

    /// Newer Firebase spells the enum `FirestoreErrorCode.Code`.
    public typealias Code = FirestoreErrorCode
}
