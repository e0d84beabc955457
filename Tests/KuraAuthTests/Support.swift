import Foundation
import KuraCore
import KuraModel
import KuraTestSupport
import Synchronization
import Testing

@testable import KuraAuth
@testable import KuraSQLiteEngine

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let seconds: Mutex<Double>
    init(_ start: Double = 1_800_000_000) { seconds = Mutex(start) }
    var now: Double { seconds.withLock { $0 } }
    func advance(_ delta: Double) { seconds.withLock { $0 += delta } }
    var authClock: AuthClock { AuthClock { [self] in now } }
}

/// A service on a fresh temporary directory, with cheap password hashing and a manual clock.
final class Fixture {
    let directory: String
    let clock = TestClock()
    let auth: AuthService

    init(_ configure: (inout AuthConfiguration) -> Void = { _ in }) throws {
        directory = try TemporaryDirectory("auth").path
        var configuration = AuthConfiguration.lowCostForTesting
        configure(&configuration)
        auth = try AuthService(directory: directory, configuration: configuration, clock: clock.authClock)
    }

    /// Another service on the same directory (a second process, or a restart).
    func reopen(_ configuration: AuthConfiguration = .lowCostForTesting) throws -> AuthService {
        try AuthService(directory: directory, configuration: configuration, clock: clock.authClock)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    @discardableResult
    func signUp(_ email: String = "ann@example.com", _ password: String = "secret-pw") throws -> AuthResult {
        try auth.signUp(email: email, password: password)
    }
}

/// Expects `body` to throw a `APIError` with `code` and `status`; returns it.
@discardableResult
func expectError(
    _ code: ErrorCode, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> APIError? {
    do {
        try body()
        Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as APIError {
        #expect(error.code == code && error.status == status, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
