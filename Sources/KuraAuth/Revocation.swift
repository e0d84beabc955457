import Synchronization

/// Access granted earlier that no longer holds: a session signed out or revoked for refresh-token reuse, every
/// session of a user (password change or reset, "sign out everywhere"), or an account disabled, deleted, or
/// changed in what its ID tokens claim (custom claims, email, `email_verified` withdrawn).
///
/// `AuthService` announces each one to its observers synchronously, on the thread that made the change, after
/// the database write and after the token cache forgot the user's verifications: an observer that ends streams
/// does so before the operation answers.
public struct Revocation: Sendable, Equatable {
    /// The user whose access changed.
    public let uid: String
    /// The one session revoked; `nil` when every session of the user is affected (or the account itself).
    public let sessionID: String?
    /// A session spared when `sessionID` is `nil`: the one that changed its own password keeps working.
    public let keptSessionID: String?

    /// Creates a revocation of `sessionID` of `uid`, or of all of the user's access (but `keptSessionID`'s) with
    /// `nil`.
    public init(uid: String, sessionID: String? = nil, keptSessionID: String? = nil) {
        self.uid = uid
        self.sessionID = sessionID
        self.keptSessionID = keptSessionID
    }

    /// Whether a credential of `uid` in session `sessionID` is affected.
    public func covers(uid: String, sessionID: String) -> Bool {
        uid == self.uid && (self.sessionID == nil || self.sessionID == sessionID) && keptSessionID != sessionID
    }
}

/// The observers of `AuthService`'s revocations; thread-safe.
final class RevocationObservers: Sendable {
    private let observers = Mutex<[@Sendable (Revocation) -> Void]>([])

    func add(_ observer: @escaping @Sendable (Revocation) -> Void) { observers.withLock { $0.append(observer) } }

    func announce(_ revocation: Revocation) {
        // Called outside the lock: an observer may take locks of its own.
        for observer in observers.withLock({ $0 }) { observer(revocation) }
    }
}
