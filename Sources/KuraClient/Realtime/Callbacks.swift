import Foundation
internal import KuraModel

/// A caller's closure carried to the callback queue. Completion handlers and listener callbacks are not required
/// to be `@Sendable` (Firebase's are not, and UIKit code captures view controllers in them): the SDK only ever
/// calls them on the one queue the app chose (`Kura.Settings.dispatchQueue`, the main queue by default).
struct CallbackBox<Value>: @unchecked Sendable {
    // `@unchecked`: the value crosses threads but is only called on the app's one callback queue.
    let value: Value
}

/// Runs `operation` in a task and calls `completion` with its outcome on `queue`.
func runThenCall<T>(
    on queue: DispatchQueue, _ completion: ((Result<T, any Error>) -> Void)?,
    _ operation: @escaping @Sendable () async throws -> T
) {
    let box = CallbackBox(value: completion)
    Task {
        let result: Result<T, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        let outcome = CallbackBox(value: result)
        queue.async { box.value?(outcome.value) }
    }
}

/// `(Error?) -> Void` as a `Result` callback.
func errorOnly(_ completion: ((Error?) -> Void)?) -> ((Result<Void, any Error>) -> Void)? {
    completion.map { completion in
        { result in
            if case .failure(let error) = result { completion(error) } else { completion(nil) }
        }
    }
}

/// `(T?, Error?) -> Void` as a `Result` callback.
func valueOrError<T>(_ completion: ((T?, Error?) -> Void)?) -> ((Result<T, any Error>) -> Void)? {
    completion.map { completion in
        { result in
            switch result {
            case .success(let value): completion(value, nil)
            case .failure(let error): completion(nil, error)
            }
        }
    }
}
