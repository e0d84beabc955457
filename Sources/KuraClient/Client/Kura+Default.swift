import Foundation
internal import KuraModel

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

extension Kura {
    /// Not offered: a Kura client is made for one server's URL.
    @available(*, unavailable, message: "point Kura.configure(url:) at your local server, e.g. http://127.0.0.1:8090")
    public func useEmulator(withHost host: String, port: Int) {}
}

extension Auth {
    /// Not offered: a Kura client is made for one server's URL.
    @available(*, unavailable, message: "point Kura.configure(url:) at your local server, e.g. http://127.0.0.1:8090")
    public func useEmulator(withHost host: String, port: Int) {}
}

/// Not offered: documents hold JSON values only.
@available(*, unavailable, message: "store the position as two Double fields, e.g. [\"lat\": 35.0, \"lng\": 135.7]")
public struct GeoPoint {
    public init(latitude: Double, longitude: Double) {}
}
