import KuraAuth
import KuraCore
import KuraHTTP
import KuraModel

/// Firebase Auth's wire format, in one place: the error body and its messages, the user record, the token fields.
/// The routes (`FirebaseAuthRoutes`) do Kura's work and answer through these.
enum FirebaseWire {
    /// The codes Firebase answers with a bare message (`"EMAIL_EXISTS"`); every other code gets
    /// `"CODE : detail"`, which the SDKs read the same way (they split at `" : "`).
    static let bareCodes: Set<String> = [
        "EMAIL_EXISTS", "INVALID_EMAIL", "MISSING_PASSWORD", "INVALID_LOGIN_CREDENTIALS", "USER_DISABLED",
        "INVALID_ID_TOKEN", "TOKEN_EXPIRED", "INVALID_REFRESH_TOKEN", "INVALID_OOB_CODE", "EXPIRED_OOB_CODE",
        "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "USER_NOT_FOUND", "EMAIL_NOT_FOUND", "TOO_MANY_ATTEMPTS_TRY_LATER",
        "MISSING_REFRESH_TOKEN", "MISSING_ID_TOKEN", "MISSING_OOB_CODE", "MISSING_EMAIL", "MISSING_REQ_TYPE",
        "INVALID_GRANT_TYPE", "MISSING_GRANT_TYPE", "DUPLICATE_LOCAL_ID", "EMAIL_NOT_VERIFIED", "MISSING_LOCAL_ID",
    ]

    /// Kura codes Firebase spells otherwise.
    static let renamed: [String: String] = ["ALREADY_EXISTS": "DUPLICATE_LOCAL_ID", "INTERNAL": "INTERNAL_ERROR"]

    /// A Firebase error (an `APIError` whose code is Firebase's message), 400 like Firebase's own.
    static func error(_ message: String, _ detail: String = "") -> APIError {
        APIError(ErrorCode(rawValue: message), status: 400, message: detail)
    }

    /// An error that refuses the caller of an admin endpoint (its `Authorization`): it keeps Kura's status (401,
    /// 403), as on every other endpoint, where every other error takes Firebase's 400.
    struct CallerRefusal: Error {
        let error: APIError
    }

    /// The answer to `error`: `{"error":{"code":<status>,"message":"<CODE>[ : detail]","errors":[…]}}`. The
    /// statuses are Firebase's: 400 for every error of the request (the account codes, the rate limit), Kura's own
    /// for refused callers and for 5xx. `minPasswordLength` words `WEAK_PASSWORD` as Firebase does.
    static func response(
        for error: any Error, request: Request, environment: RequestEnvironment, minPasswordLength: Int
    ) -> Response {
        var keepStatus = false
        var thrown = error
        if let refusal = error as? CallerRefusal {
            thrown = refusal.error
            keepStatus = true
        }
        guard var apiError = APIError(answering: thrown) else {
            // Logged with its details by Kura's own mapping, which answers an opaque 500 naming the request id.
            let kura = ErrorResponses.response(
                for: thrown, requestID: request.requestID, logger: environment.logger,
                verbose: environment.verboseErrors)
            var detail = "request \(request.requestID) failed"
            if case .bytes(let bytes) = kura.body,
                let message = (try? JSONValue.parse(bytes))?.objectValue?["error"]?.objectValue?["message"]?.stringValue
            {
                detail = message
            }
            return body(status: 500, message: "INTERNAL_ERROR : \(detail)", headers: [])
        }
        if apiError.status >= 500 {
            environment.logger.warn("request \(request.requestID) failed: \(apiError)")
            keepStatus = true
        }
        if apiError.code == .internal { apiError.message = "request \(request.requestID) failed" }
        let code = renamed[apiError.code.rawValue] ?? apiError.code.rawValue
        let message: String
        if code == "WEAK_PASSWORD" {
            message = "WEAK_PASSWORD : Password should be at least \(minPasswordLength) characters"
        } else if bareCodes.contains(code) || apiError.message.isEmpty {
            message = code
        } else {
            message = "\(code) : \(apiError.message)"
        }
        let status = keepStatus ? apiError.status : 400
        return body(status: status, message: message, headers: apiError.headers)
    }

    private static func body(status: Int, message: String, headers: [(String, String)]) -> Response {
        let value: JSONValue = [
            "error": [
                "code": .int(Int64(status)), "message": .string(message),
                "errors": [["message": .string(message), "domain": "global", "reason": "invalid"]],
            ]
        ]
        var response = Response.json(value.jsonBytes, status: status)
        for (name, value) in headers { response.headers.set(name, value) }
        return response
    }

    /// A 200 answer: `kind` (when given) first, then `members`.
    static func answer(_ kind: String?, _ members: [(String, JSONValue)]) -> JSONValue {
        var object = JSONObject()
        if let kind { object["kind"] = .string(kind) }
        for (name, value) in members { object[name] = value }
        return .object(object)
    }

    /// The session fields of a sign-up or sign-in answer: `idToken`, `refreshToken` and `expiresIn` (a string,
    /// as Firebase sends it); none for an account created without a session.
    static func session(_ result: AuthResult) -> [(String, JSONValue)] {
        guard result.isSignedIn else { return [] }
        return [
            ("idToken", .string(result.idToken)), ("refreshToken", .string(result.refreshToken)),
            ("expiresIn", .string(String(result.expiresIn))),
        ]
    }

    /// Firebase's user record (`accounts:lookup`, `accounts:batchGet`): `localId`, `email`, `emailVerified`,
    /// `displayName`, `disabled`, `createdAt` and `lastLoginAt` (milliseconds, as strings), `customAttributes` (a
    /// JSON string), and the one provider Kura has, `password`.
    static func userRecord(_ user: AuthUser) -> JSONValue {
        var provider: JSONObject = [
            "providerId": "password", "email": .string(user.email), "federatedId": .string(user.email),
            "rawId": .string(user.email),
        ]
        if let name = user.displayName { provider["displayName"] = .string(name) }
        var record: JSONObject = [
            "localId": .string(user.uid), "email": .string(user.email), "emailVerified": .bool(user.emailVerified),
        ]
        if let name = user.displayName { record["displayName"] = .string(name) }
        record["providerUserInfo"] = .array([.object(provider)])
        record["disabled"] = .bool(user.disabled)
        record["createdAt"] = .string(String(user.createTime / 1000))
        if let last = user.lastSignInTime { record["lastLoginAt"] = .string(String(last / 1000)) }
        if !user.customClaims.isEmpty {
            record["customAttributes"] = .string(
                String(decoding: JSONValue.object(user.customClaims).jsonBytes, as: UTF8.self))
        }
        return .object(record)
    }
}

/// A Firebase request body: JSON (what the SDKs send, and the iOS SDK's Secure Token call) or form-encoded (the web
/// SDK's Secure Token call). Unknown members are ignored, as the SDKs send fields Kura has no use for
/// (`clientType`, `captchaResponse`, `tenantId`, `returnSecureToken`…); the members read are type-checked.
struct FirebaseBody {
    let object: JSONObject

    init(_ request: Request) throws {
        let type = request.headers["Content-Type"]?.lowercased() ?? ""
        if type.hasPrefix("application/x-www-form-urlencoded") {
            var object = JSONObject()
            let text = String(decoding: request.body, as: UTF8.self)
            for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = PercentDecoding.decode(parts[0], plusIsSpace: true),
                    let value = parts.count == 2 ? PercentDecoding.decode(parts[1], plusIsSpace: true) : ""
                else { throw FirebaseWire.error("INVALID_ARGUMENT", "malformed form body") }
                object[name] = .string(value)
            }
            self.object = object
            return
        }
        guard !request.body.isEmpty else {
            object = JSONObject()
            return
        }
        guard let value = try? JSONValue.parse(request.body), let object = value.objectValue else {
            throw FirebaseWire.error("INVALID_ARGUMENT", "the body must be a JSON object")
        }
        self.object = object
    }

    subscript(_ key: String) -> JSONValue? { object[key] }

    func string(_ key: String) throws -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let string = value.stringValue else { throw wrong(key, "a string") }
        return string
    }

    /// `true`/`false`, or their spelling in a form body.
    func bool(_ key: String) throws -> Bool? {
        switch object[key] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case .string("true")?: return true
        case .string("false")?: return false
        default: throw wrong(key, "true or false")
        }
    }

    /// An array of strings; a single string counts as one.
    func strings(_ key: String) throws -> [String] {
        switch object[key] {
        case nil, .null?: return []
        case .string(let one)?: return [one]
        case .array(let values)?:
            return try values.map { value in
                guard let string = value.stringValue else { throw wrong(key, "an array of strings") }
                return string
            }
        default: throw wrong(key, "an array of strings")
        }
    }

    /// An integer, or one written as a string (Firebase's int64 fields are strings in JSON).
    func integer(_ key: String) throws -> Int64? {
        switch object[key] {
        case nil, .null?: return nil
        case .int(let n)?: return n
        case .double(let d)? where d.rounded() == d && abs(d) < 9e15: return Int64(d)
        case .string(let text)?:
            guard let n = Int64(text) else { throw wrong(key, "an integer") }
            return n
        default: throw wrong(key, "an integer")
        }
    }

    private func wrong(_ key: String, _ expected: String) -> APIError {
        FirebaseWire.error("INVALID_ARGUMENT", "'\(key)' must be \(expected)")
    }
}
