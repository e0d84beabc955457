import Foundation

/// Firestore's entry point spelled the Firebase way, so `var database: Firestore!` and `Firestore.firestore()`
/// compile unchanged: a `Firestore` is a `Kura` client.
public typealias Firestore = Kura

extension Kura {
    private static let shared = Locked<Kura?>(nil)

    /// Makes the client that `Auth.auth()`, `Firestore.firestore()` and `Database.database()` return — Kura's
    /// `FirebaseApp.configure()`. Call it once at launch (a later call replaces the client for later callers).
    @discardableResult
    public static func configure(url: URL, settings: Settings = Settings()) -> Kura {
        let kura = Kura(url: url, settings: settings)
        shared.withLock { $0 = kura }
        return kura
    }

    /// The client made by `Kura.configure(url:)`. Stops the program with a message when there is none, as
    /// Firebase does without `FirebaseApp.configure()`.
    public static var `default`: Kura {
        guard let kura = shared.current else {
            fatalError(
                "KuraClient: call Kura.configure(url:) before Auth.auth(), Firestore.firestore() or Database.database()"
            )
        }
        return kura
    }

    /// The default client (`Kura.configure(url:)`), under Firestore's name.
    public static func firestore() -> Kura { .default }
}

extension Auth {
    /// The default client's accounts (`Kura.configure(url:)`), as Firebase's `Auth.auth()`.
    public static func auth() -> Auth { Kura.default.auth }
}

/// Firebase's app object has no Kura counterpart: a Kura client talks to one server, set up by
/// `Kura.configure(url:)`.
public enum FirebaseApp {
    /// Not offered: the compiler points to `Kura.configure(url:)`.
    @available(*, unavailable, message: "use Kura.configure(url: URL(string: \"https://your-kura-server\")!)")
    public static func configure() {}
}
