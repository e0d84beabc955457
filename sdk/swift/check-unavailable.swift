// Firebase names KuraClient does not offer: each must fail to compile with a message saying what to write.
// sdk/swift/check.sh type-checks this file against the SDK and compares the messages with the `// expect:` lines.
import KuraClient

func firebaseNames(_ auth: Auth, _ db: Firestore) async throws {
    FirebaseApp.configure()  // expect: use Kura.configure(url:
    auth.useEmulator(withHost: "localhost", port: 9099)  // expect: point Kura.configure(url:) at your local server
    db.useEmulator(withHost: "localhost", port: 8080)  // expect: point Kura.configure(url:) at your local server
    _ = GeoPoint(latitude: 35, longitude: 135)  // expect: store the position as two Double fields
}
