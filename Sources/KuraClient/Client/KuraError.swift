import Foundation
internal import KuraModel

/// An error from Kura: the server's stable code and message, or a client-side failure (`.unavailable` when the
/// server cannot be reached, `.notSignedIn`, `.invalidResponse`…).
public struct KuraError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for programs.
    public var code: Code
    /// What went wrong, for people (the server's message when the server answered).
    public var message: String
    /// The HTTP status the server answered with; `nil` for errors raised in the client.
    public var status: Int?
    /// For `.tooManyAttemptsTryLater`: the server's `Retry-After`, in seconds.
    public var retryAfter: TimeInterval?
    /// For a network failure: `false` when the request certainly never reached the server (connection refused),
    /// `true` when it may have been applied without the answer arriving. `nil` for answers from the server.
    var mayHaveBeenDelivered: Bool?
    /// Which Firebase product the failed call belongs to, for the `NSError` view (`FIRAuthErrorDomain` or
    /// `FIRFirestoreErrorDomain`): set to `.auth` where `Auth` and `User` calls throw; every other call is a
    /// Firestore call.
    var service = Service.firestore

    /// The Firebase product whose error domain and codes an error reports.
    enum Service: Sendable {
        case auth, firestore
    }

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String, status: Int? = nil, retryAfter: TimeInterval? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// Equal when code, message, status, `retryAfter` and the kind of network failure are (not which call
    /// threw it).
    public static func == (a: KuraError, b: KuraError) -> Bool {
        a.code == b.code && a.message == b.message && a.status == b.status && a.retryAfter == b.retryAfter
            && a.mayHaveBeenDelivered == b.mayHaveBeenDelivered
    }

    /// Whether this is a failure to reach the server (as opposed to an answer from it).
    public var isNetworkFailure: Bool { mayHaveBeenDelivered != nil }

    /// The server's error codes in Swift spelling (docs/api.md lists them), plus the client's own.
    public enum Code: Sendable, Hashable, CustomStringConvertible {
        case malformedRequest, invalidArgument, invalidPath, invalidQuery
        case emailExists, invalidEmail, weakPassword, missingPassword, invalidLoginCredentials
        case invalidOOBCode, expiredOOBCode, invalidRefreshToken, invalidClaims
        case unauthenticated, invalidIDToken, tokenExpired, credentialTooOldLoginAgain
        case emailNotVerified, userDisabled, permissionDenied, userNotFound, tooManyAttemptsTryLater
        case alreadyExists, failedPrecondition, documentTooLarge, notFound, methodNotAllowed
        case requestTimeout, payloadTooLarge, expectationFailed, headersTooLarge, httpVersionNotSupported
        case invalidRules, originNotAllowed, resourceExhausted, aborted, notImplemented, overflow
        case insufficientStorage, invalidContinueURI, unauthorizedDomain
        case `internal`
        /// The server is overloaded (503), or cannot be reached at all (a network failure).
        case unavailable
        /// The call needs a signed-in user and there is none.
        case notSignedIn
        /// The server's answer could not be understood.
        case invalidResponse
        /// The listener or task was cancelled.
        case cancelled
        /// A code this version of the SDK does not know, as the server spelled it.
        case unknown(String)

        /// The server's codes come from the model's `ErrorCode` (one spelling for server and SDK); the last three
        /// are the SDK's own.
        private static let table: [(Code, String)] = [
            (.malformedRequest, ErrorCode.malformedRequest.rawValue),
            (.invalidArgument, ErrorCode.invalidArgument.rawValue),
            (.invalidPath, ErrorCode.invalidPath.rawValue), (.invalidQuery, ErrorCode.invalidQuery.rawValue),
            (.emailExists, ErrorCode.emailExists.rawValue),
            (.invalidEmail, ErrorCode.invalidEmail.rawValue), (.weakPassword, ErrorCode.weakPassword.rawValue),
            (.missingPassword, ErrorCode.missingPassword.rawValue),
            (.invalidLoginCredentials, ErrorCode.invalidLoginCredentials.rawValue),
            (.invalidOOBCode, ErrorCode.invalidOOBCode.rawValue),
            (.expiredOOBCode, ErrorCode.expiredOOBCode.rawValue),
            (.invalidRefreshToken, ErrorCode.invalidRefreshToken.rawValue),
            (.invalidClaims, ErrorCode.invalidClaims.rawValue), (.unauthenticated, ErrorCode.unauthenticated.rawValue),
            (.invalidIDToken, ErrorCode.invalidIDToken.rawValue), (.tokenExpired, ErrorCode.tokenExpired.rawValue),
            (.credentialTooOldLoginAgain, ErrorCode.credentialTooOldLoginAgain.rawValue),
            (.emailNotVerified, ErrorCode.emailNotVerified.rawValue),
            (.userDisabled, ErrorCode.userDisabled.rawValue), (.permissionDenied, ErrorCode.permissionDenied.rawValue),
            (.userNotFound, ErrorCode.userNotFound.rawValue),
            (.tooManyAttemptsTryLater, ErrorCode.tooManyAttemptsTryLater.rawValue),
            (.alreadyExists, ErrorCode.alreadyExists.rawValue),
            (.failedPrecondition, ErrorCode.failedPrecondition.rawValue),
            (.documentTooLarge, ErrorCode.documentTooLarge.rawValue), (.notFound, ErrorCode.notFound.rawValue),
            (.methodNotAllowed, ErrorCode.methodNotAllowed.rawValue),
            (.requestTimeout, ErrorCode.requestTimeout.rawValue),
            (.payloadTooLarge, ErrorCode.payloadTooLarge.rawValue),
            (.expectationFailed, ErrorCode.expectationFailed.rawValue),
            (.headersTooLarge, ErrorCode.headersTooLarge.rawValue),
            (.httpVersionNotSupported, ErrorCode.httpVersionNotSupported.rawValue),
            (.invalidRules, ErrorCode.invalidRules.rawValue),
            (.originNotAllowed, ErrorCode.originNotAllowed.rawValue),
            (.resourceExhausted, ErrorCode.resourceExhausted.rawValue), (.aborted, ErrorCode.aborted.rawValue),
            (.notImplemented, ErrorCode.notImplemented.rawValue), (.overflow, ErrorCode.overflow.rawValue),
            (.internal, ErrorCode.`internal`.rawValue), (.unavailable, ErrorCode.unavailable.rawValue),
            (.insufficientStorage, ErrorCode.insufficientStorage.rawValue),
            (.invalidContinueURI, ErrorCode.invalidContinueURI.rawValue),
            (.unauthorizedDomain, ErrorCode.unauthorizedDomain.rawValue),
            (.notSignedIn, "NOT_SIGNED_IN"),
            (.invalidResponse, "INVALID_RESPONSE"), (.cancelled, "CANCELLED"),
        ]
        private static let byName = Dictionary(uniqueKeysWithValues: table.map { ($0.1, $0.0) })

        /// The code for the server's spelling (`"PERMISSION_DENIED"` → `.permissionDenied`).
        public init(rawValue: String) { self = Self.byName[rawValue] ?? .unknown(rawValue) }

        /// The server's spelling.
        public var rawValue: String {
            if case .unknown(let name) = self { return name }
            return Self.table.first { $0.0 == self }?.1 ?? "UNKNOWN"
        }

        public var description: String { rawValue }
    }
}

extension KuraError {
    static func notSignedIn(_ what: String) -> KuraError { KuraError(.notSignedIn, "\(what) needs a signed-in user") }
    static func invalidArgument(_ message: String) -> KuraError { KuraError(.invalidArgument, message) }
    static func invalidResponse(_ message: String) -> KuraError { KuraError(.invalidResponse, message) }

    /// This error as thrown by an `Auth` or `User` call.
    func fromAuth() -> KuraError {
        var error = self
        error.service = .auth
        return error
    }
}

/// Runs an `Auth` or `User` call: a `KuraError` it throws reports Firebase Auth's error domain and codes.
func authCall<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as KuraError {
        throw error.fromAuth()
    }
}
