import Foundation
internal import KuraModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request to the Kura API. `path` is already percent-encoded (`/api/docs/users/u1`).
struct APIRequest: Sendable {
    var method: String
    var path: String
    var body: KuraValue?
    var headers: [String: String] = [:]

    init(_ method: String, _ path: String, body: KuraValue? = nil) {
        self.method = method
        self.path = path
        self.body = body
    }
}

/// The server's answer: status, parsed JSON body (`nil` when empty) and headers.
struct APIResponse: Sendable {
    var status: Int
    var body: KuraValue?
    var headers: [String: String]

    /// The body, which must be a JSON object.
    func object() throws -> DocumentData {
        guard case .map(let object)? = body else { throw KuraError.invalidResponse("expected a JSON object") }
        return object
    }
}

/// Sends API requests with `URLSession` and turns error bodies and network failures into `KuraError`s.
final class Transport: Sendable {
    let baseURL: URL
    private let session: URLSession
    /// For tests: path → how many more answers to that path to throw away after the server has processed the
    /// request, as if the connection died just before the answer arrived.
    let lostAnswers = Locked<[String: Int]>([:])
    /// For tests: path → errors to answer the next requests to that path with, one each, without sending them (as a
    /// server that refused them without applying anything would).
    let refusals = Locked<[String: [KuraError]]>([:])
    /// `Auth.languageCode`: sent as `Accept-Language`, so the server mails in that language.
    let acceptLanguage = Locked<String?>(nil)

    init(baseURL: URL, timeout: TimeInterval) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    /// Lets the session's tasks finish, then frees it. Nothing can be waiting on one of them here (a request's
    /// caller holds the transport until its answer), and cancelling them is what swift-corelibs-foundation's
    /// `URLSession` cannot do safely on Linux: `invalidateAndCancel()` traps in `URLSession.behaviour(for:)` when a
    /// task leaves the session's registry while its cancellation is in flight ("Trying to access a behaviour for a
    /// task that in not in the registry", swift-corelibs-foundation issue 3296).
    deinit { session.finishTasksAndInvalidate() }

    /// `baseURL` joined with an API path (and its query string).
    func url(_ path: String) -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + path)!
    }

    /// Sends `request` with `Authorization: Bearer token` when `token` is given. Throws the server's error for a
    /// 4xx/5xx answer, and `.unavailable` when the server cannot be reached (`mayHaveBeenDelivered` tells whether
    /// the request can have arrived).
    func send(_ request: APIRequest, token: String?) async throws -> APIResponse {
        var urlRequest = URLRequest(url: url(request.path))
        urlRequest.httpMethod = request.method
        if let body = request.body {
            urlRequest.httpBody = try JSONText.encode(body)
            urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let token { urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let language = acceptLanguage.current {
            urlRequest.setValue(language, forHTTPHeaderField: "Accept-Language")
        }
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let refusal = refusals.withLock { refusals -> KuraError? in
            guard let first = refusals[request.path]?.first else { return nil }
            refusals[request.path]?.removeFirst()
            return first
        }
        if let refusal { throw refusal }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await perform(urlRequest)
        } catch {
            throw Self.networkError(error, url: urlRequest.url!)
        }
        let lose = lostAnswers.withLock { lost -> Bool in
            guard let count = lost[request.path], count > 0 else { return false }
            lost[request.path] = count - 1
            return true
        }
        if lose { throw Self.networkError(URLError(.networkConnectionLost), url: urlRequest.url!) }
        guard let http = response as? HTTPURLResponse else { throw KuraError.invalidResponse("not an HTTP answer") }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        let body = data.isEmpty ? nil : try? JSONText.decode(data)
        guard http.statusCode < 400 else {
            throw Self.serverError(status: http.statusCode, body: body, headers: headers)
        }
        if !data.isEmpty, body == nil { throw KuraError.invalidResponse("the answer is not JSON") }
        return APIResponse(status: http.statusCode, body: body, headers: headers)
    }

    /// `session.data(for:)` without its cancellation: a cancelled Swift task stops nothing here, the request runs
    /// to its answer or its timeout. swift-corelibs-foundation's `data(for:)` cancels the `URLSessionTask` when the
    /// calling task is cancelled, and that cancel traps in `URLSession.behaviour(for:)` when it meets the task's
    /// own completion (swift-corelibs-foundation issue 3296; it crashed `make test` here). A write is not undone by
    /// a cancel anyway: it may have reached the server.
    private func perform(_ request: URLRequest) async throws -> (Data, URLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let response {
                    continuation.resume(returning: (data ?? Data(), response))
                } else {
                    continuation.resume(throwing: URLError(.badServerResponse))
                }
            }.resume()
        }
    }

    /// `{"error":{"code","message"}}` → `KuraError`.
    static func serverError(status: Int, body: KuraValue?, headers: [String: String]) -> KuraError {
        let retryAfter = headers["retry-after"].flatMap(TimeInterval.init)
        guard let code = body?["error"]?["code"]?.stringValue else {
            return KuraError(.unknown("HTTP_\(status)"), "HTTP \(status) without an error body", status: status)
        }
        let message = body?["error"]?["message"]?.stringValue ?? ""
        return KuraError(KuraError.Code(rawValue: code), message, status: status, retryAfter: retryAfter)
    }

    /// A failure below HTTP: `.unavailable`, marked with whether the request can have reached the server.
    static func networkError(_ error: any Error, url: URL) -> any Error {
        if error is CancellationError { return error }
        let urlError = error as? URLError
        if urlError?.code == .cancelled { return CancellationError() }
        let unsent: Set<URLError.Code> = [
            .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet, .badURL,
            .unsupportedURL,
        ]
        var failure = KuraError(
            .unavailable, "cannot reach \(url.host ?? "the server"): \(error.localizedDescription)")
        failure.mayHaveBeenDelivered = urlError.map { !unsent.contains($0.code) } ?? true
        return failure
    }
}

/// Percent-encoding of one path segment (an ID): everything but RFC 3986 unreserved characters.
enum PathEncoding {
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func segment(_ id: String) -> String { id.addingPercentEncoding(withAllowedCharacters: unreserved) ?? id }

    static func path(_ segments: [String]) -> String { segments.map(segment).joined(separator: "/") }
}
