import KuraCore
import KuraModel

/// The verified claims of an ID token: who the caller is, for how long, and their custom claims.
public struct AuthClaims: Sendable, Equatable {
    /// `sub`: the user id.
    public var uid: String
    /// `email`.
    public var email: String
    /// `email_verified` when the token was issued.
    public var emailVerified: Bool
    /// `iat`, seconds since the epoch.
    public var issuedAt: Int64
    /// `exp`, seconds since the epoch.
    public var expiresAt: Int64
    /// `auth_time`: when the user last typed their password (seconds); carried across refreshes.
    public var authTime: Int64
    /// `sid`: the session (refresh-token family) the token belongs to.
    public var sessionID: String
    /// The account's custom claims, at the top level of the token (e.g. `admin: true`).
    public var customClaims: JSONObject

    /// Claim names custom claims may not use.
    public static let reservedNames: Set<String> = [
        "iss", "aud", "sub", "iat", "exp", "nbf", "jti", "auth_time", "sid", "email", "email_verified", "firebase",
        "user_id", "kid", "typ", "alg",
    ]

    /// `true` when the custom claim `admin` is `true`.
    public var isAdmin: Bool { customClaims["admin"] == .bool(true) }

    /// The full claim set (the token payload without `iss`/`aud`), e.g. for `request.auth.token` in rules.
    public var json: JSONValue {
        var object: JSONObject = [
            "sub": .string(uid), "email": .string(email), "email_verified": .bool(emailVerified),
            "iat": .int(issuedAt), "exp": .int(expiresAt), "auth_time": .int(authTime), "sid": .string(sessionID),
        ]
        for (key, value) in customClaims { object[key] = value }
        return .object(object)
    }

    /// An equal copy with storage of its own (its strings and custom claims rebuilt), for a cache that one thread
    /// reads on every request: reference counts on storage shared with other threads would bounce between cores.
    public var unshared: AuthClaims {
        var copy = self
        copy.uid = String(decoding: Array(uid.utf8), as: UTF8.self)
        copy.email = String(decoding: Array(email.utf8), as: UTF8.self)
        copy.sessionID = String(decoding: Array(sessionID.utf8), as: UTF8.self)
        if !customClaims.isEmpty,
            let rebuilt = (try? JSONValue.parse(JSONValue.object(customClaims).jsonBytes))?.objectValue
        {
            copy.customClaims = rebuilt
        }
        return copy
    }
}

/// Compact JWS encoding of ID tokens: `base64url(header).base64url(payload).base64url(Ed25519 signature)`.
enum IDToken {
    /// With `firebase`, the payload also carries Firebase's `user_id` and `firebase` claims (both reserved names,
    /// so `decode` leaves them out of the custom claims).
    static func encode(
        _ claims: AuthClaims, issuer: String, audience: String, key: SigningKey, firebase: Bool = false
    ) -> String {
        let header: JSONValue = ["alg": "EdDSA", "typ": "JWT", "kid": .string(key.kid)]
        var payload: JSONObject = ["iss": .string(issuer), "aud": .string(audience)]
        for (name, value) in claims.json.objectValue! { payload[name] = value }
        if firebase {
            payload["user_id"] = .string(claims.uid)
            payload["firebase"] = [
                "identities": ["email": [.string(claims.email)]], "sign_in_provider": "password",
            ]
        }
        let signingInput =
            Base64.encode(header.jsonBytes, .urlSafe) + "."
            + Base64.encode(JSONValue.object(payload).jsonBytes, .urlSafe)
        return signingInput + "."
            + Base64.encode(Sodium.sign(Array(signingInput.utf8), secretKey: key.secretKey), .urlSafe)
    }

    /// Checks the shape, signature, issuer and audience and returns the claims; expiry is the caller's to check.
    /// Throws 401 `INVALID_ID_TOKEN`.
    static func decode(
        _ token: String, issuer: String, audience: String, key lookup: (String) -> SigningKey?
    ) throws -> AuthClaims {
        guard token.utf8.count <= 8192 else { throw APIError.invalidIDToken() }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64.decode(parts[0], .urlSafe),
            let payloadBytes = Base64.decode(parts[1], .urlSafe), let signature = Base64.decode(parts[2], .urlSafe),
            let header = (try? JSONValue.parse(headerBytes))?.objectValue
        else { throw APIError.invalidIDToken("the ID token is malformed") }
        guard header["alg"] == "EdDSA", let kid = header["kid"]?.stringValue, let key = lookup(kid) else {
            throw APIError.invalidIDToken("the ID token is not signed by a known key")
        }
        let signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard Sodium.verify(signature, of: signingInput, publicKey: key.publicKey) else {
            throw APIError.invalidIDToken("the ID token signature is invalid")
        }
        guard var payload = (try? JSONValue.parse(payloadBytes))?.objectValue, payload["iss"] == .string(issuer),
            payload["aud"] == .string(audience), let uid = payload["sub"]?.stringValue,
            let sid = payload["sid"]?.stringValue, case .int(let iat)? = payload["iat"],
            case .int(let exp)? = payload["exp"], case .int(let authTime)? = payload["auth_time"],
            let email = payload["email"]?.stringValue, case .bool(let verified)? = payload["email_verified"]
        else { throw APIError.invalidIDToken("the ID token claims are invalid") }
        for name in AuthClaims.reservedNames { payload[name] = nil }
        return AuthClaims(
            uid: uid, email: email, emailVerified: verified, issuedAt: iat, expiresAt: exp, authTime: authTime,
            sessionID: sid, customClaims: payload)
    }
}
