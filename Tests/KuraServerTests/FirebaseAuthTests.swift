import Foundation
import KuraAuth
import KuraServer
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// The project id the Firebase tests configure.
let firebaseProject = "demo-kura"

/// Runs `body` against a server with the Firebase Auth endpoints on (cheap hashing, no rate limits).
func withFirebaseKura<T>(
    rules: String? = nil, configure: (inout KuraConfiguration) throws -> Void = { _ in },
    _ body: (TestKura) throws -> T
) throws -> T {
    try withAuthKura(
        rules: rules,
        configure: { configuration in
            configuration.compat.firebaseAuth = true
            configuration.compat.firebaseProjectId = firebaseProject
            try configure(&configuration)
        }, body)
}

extension TestKura {
    /// A client call as the web SDK sends it: `POST <path>?key=<API key>`, a JSON body, the SDK's headers.
    func firebase(_ path: String, _ body: [String: Any], headers: [(String, String)] = webSDKHeaders) throws
        -> HTTPResponse
    {
        try request("POST", path + "?key=fake-api-key", json: body, headers: headers, auth: .none)
    }

    /// A form-encoded call (the web SDK's Secure Token request).
    func firebaseForm(_ path: String, _ fields: [(String, String)]) throws -> HTTPResponse {
        let body = fields.map { "\(formEncode($0.0))=\(formEncode($0.1))" }.joined(separator: "&")
        return try request(
            "POST", path + "?key=fake-api-key", body: Array(body.utf8),
            headers: [("Content-Type", "application/x-www-form-urlencoded")] + webSDKHeaders, auth: .none)
    }

    /// The codes of `requestType` mailed to `email`, oldest first, from the emulator's endpoint as the Admin SDK
    /// tools call it (`Bearer owner`, from loopback).
    func oobCodes(_ email: String, _ requestType: String) throws -> [String] {
        try settleAddressMails()
        let response = try request(
            "GET", "/emulator/v1/projects/\(firebaseProject)/oobCodes", auth: .header("Bearer owner"))
        guard response.status == 200, let codes = response.json["oobCodes"] as? [[String: Any]] else {
            throw UnexpectedResponse(response)
        }
        return codes.filter { $0["email"] as? String == email && $0["requestType"] as? String == requestType }
            .compactMap { $0["oobCode"] as? String }
    }
}

/// The headers the web SDK adds to its calls.
let webSDKHeaders: [(String, String)] = [
    ("X-Client-Version", "Chrome/JsCore/10.12.0/FirebaseCore-web"), ("X-Firebase-gmpid", "1:1234:web:abcd"),
]

/// The headers the iOS SDK adds.
let iOSSDKHeaders: [(String, String)] = [
    ("X-Client-Version", "iOS/FirebaseSDK/10.24.0/FirebaseCore-iOS"), ("X-Ios-Bundle-Identifier", "com.example.app"),
]

let v1 = "/identitytoolkit.googleapis.com/v1"
let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"

/// The payload of a JWT, unverified.
func jwtPayload(_ token: String) throws -> [String: Any] {
    let parts = token.split(separator: ".")
    guard parts.count == 3 else { throw TestFailure("not a JWT: \(token)") }
    var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while text.count % 4 != 0 { text += "=" }
    guard let data = Data(base64Encoded: text),
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { throw TestFailure("undecodable JWT payload") }
    return object
}

/// Firebase's error body for `message`, as a JSON object to compare with.
func firebaseErrorBody(_ message: String, code: Int = 400) -> [String: Any] {
    [
        "error": [
            "code": code, "message": message,
            "errors": [["message": message, "domain": "global", "reason": "invalid"]],
        ]
    ]
}

@Suite("Firebase Auth REST API: the client calls as the SDKs send them")
struct FirebaseAuthTests {
    @Test("web SDK, v1: sign-up, verify by oobCode, sign-in, refresh (form), update password, delete")
    func webFlow() throws {
        try withFirebaseKura { kura in
            let email = "ada@example.com"
            let signUp = try kura.firebase(
                "\(v1)/accounts:signUp",
                ["returnSecureToken": true, "email": email, "password": "secret-pw", "clientType": "CLIENT_TYPE_WEB"])
            #expect(signUp.status == 200, "\(signUp)")
            #expect(signUp.json["kind"] as? String == "identitytoolkit#SignupNewUserResponse")
            #expect(signUp.json["expiresIn"] as? String == "3600")
            #expect(signUp.json["email"] as? String == email)
            let uid = try #require(signUp.json["localId"] as? String)
            let idToken = try #require(signUp.json["idToken"] as? String)
            #expect(signUp.json["refreshToken"] is String)

            let claims = try jwtPayload(idToken)
            #expect(claims["iss"] as? String == "https://securetoken.google.com/\(firebaseProject)")
            #expect(claims["aud"] as? String == firebaseProject)
            #expect(claims["sub"] as? String == uid)
            #expect(claims["user_id"] as? String == uid)
            #expect(claims["email_verified"] as? Bool == false)
            #expect(claims["auth_time"] is NSNumber)
            #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "password")
            // Kura's own API takes the token as any other.
            #expect(try kura.me(idToken).status == 200)

            let send = try kura.firebase(
                "\(v1)/accounts:sendOobCode",
                ["requestType": "VERIFY_EMAIL", "idToken": idToken, "clientType": "CLIENT_TYPE_WEB"])
            #expect(send.status == 200, "\(send)")
            #expect(send.json["kind"] as? String == "identitytoolkit#GetOobConfirmationCodeResponse")
            #expect(send.json["email"] as? String == email)
            let code = try #require(try kura.oobCodes(email, "VERIFY_EMAIL").last)
            let verified = try kura.firebase("\(v1)/accounts:update", ["oobCode": code])
            #expect(verified.status == 200, "\(verified)")
            #expect(verified.json["emailVerified"] as? Bool == true)
            #expect(verified.json["localId"] as? String == uid)

            let signIn = try kura.firebase(
                "\(v1)/accounts:signInWithPassword",
                [
                    "returnSecureToken": true, "email": email, "password": "secret-pw",
                    "clientType": "CLIENT_TYPE_WEB", "captchaResponse": "",
                ])
            #expect(signIn.status == 200, "\(signIn)")
            #expect(signIn.json["kind"] as? String == "identitytoolkit#VerifyPasswordResponse")
            #expect(signIn.json["registered"] as? Bool == true)
            #expect(signIn.json["expiresIn"] as? String == "3600")
            let signedIn = try #require(signIn.json["idToken"] as? String)
            #expect(try jwtPayload(signedIn)["email_verified"] as? Bool == true)

            let refreshed = try kura.firebaseForm(
                "/securetoken.googleapis.com/v1/token",
                [
                    ("grant_type", "refresh_token"),
                    ("refresh_token", try #require(signIn.json["refreshToken"] as? String)),
                ])
            #expect(refreshed.status == 200, "\(refreshed)")
            #expect(refreshed.json["token_type"] as? String == "Bearer")
            #expect(refreshed.json["expires_in"] as? String == "3600")
            #expect(refreshed.json["user_id"] as? String == uid)
            #expect(refreshed.json["project_id"] as? String == firebaseProject)
            let newToken = try #require(refreshed.json["id_token"] as? String)
            #expect(refreshed.json["access_token"] as? String == newToken)
            #expect(refreshed.json["refresh_token"] is String)

            let update = try kura.firebase(
                "\(v1)/accounts:update", ["idToken": newToken, "password": "new-secret", "returnSecureToken": true])
            #expect(update.status == 200, "\(update)")
            #expect(update.json["kind"] as? String == "identitytoolkit#SetAccountInfoResponse")
            let old = try kura.firebase(
                "\(v1)/accounts:signInWithPassword",
                ["returnSecureToken": true, "email": email, "password": "secret-pw"])
            #expect(old.status == 400)
            #expect(JSON.equal(old.json, firebaseErrorBody("INVALID_LOGIN_CREDENTIALS")), "\(old)")

            let lookup = try kura.firebase("\(v1)/accounts:lookup", ["idToken": newToken])
            #expect(lookup.status == 200, "\(lookup)")
            let users = try #require(lookup.json["users"] as? [[String: Any]])
            #expect(users.first?["localId"] as? String == uid)
            #expect(users.first?["emailVerified"] as? Bool == true)

            let deleted = try kura.firebase("\(v1)/accounts:delete", ["idToken": newToken])
            #expect(deleted.status == 200, "\(deleted)")
            #expect(deleted.json["kind"] as? String == "identitytoolkit#DeleteAccountResponse")
            let gone = try kura.firebase("\(v1)/accounts:lookup", ["idToken": newToken])
            #expect(gone.status == 400)
            #expect(gone.errorCode == "INVALID_ID_TOKEN", "\(gone)")
        }
    }

    @Test("iOS SDK, v3 relyingparty: sign-up, verify from the outbox link, sign-in, refresh (JSON), update, delete")
    func iOSFlow() throws {
        try withFirebaseKura { kura in
            let email = "grace@example.com"
            let signUp = try kura.firebase(
                "\(v3)/signupNewUser", ["email": email, "password": "secret-pw", "returnSecureToken": true],
                headers: iOSSDKHeaders)
            #expect(signUp.status == 200, "\(signUp)")
            let uid = try #require(signUp.json["localId"] as? String)
            let idToken = try #require(signUp.json["idToken"] as? String)
            let send = try kura.firebase(
                "\(v3)/getOobConfirmationCode", ["requestType": "VERIFY_EMAIL", "idToken": idToken],
                headers: iOSSDKHeaders)
            #expect(send.status == 200, "\(send)")
            // The code from the mail's link, as a user's app would get it.
            let link = try kura.heldLink(to: email, mode: "verifyEmail")
            let code = try #require(queryItem(link, "code"))
            let verified = try kura.firebase("\(v3)/setAccountInfo", ["oobCode": code], headers: iOSSDKHeaders)
            #expect(verified.json["emailVerified"] as? Bool == true, "\(verified)")

            let signIn = try kura.firebase(
                "\(v3)/verifyPassword", ["email": email, "password": "secret-pw", "returnSecureToken": true],
                headers: iOSSDKHeaders)
            #expect(signIn.status == 200, "\(signIn)")
            let refresh = try kura.request(
                "POST", "/securetoken.googleapis.com/v1/token?key=fake-api-key",
                json: [
                    "grantType": "refresh_token", "refreshToken": try #require(signIn.json["refreshToken"] as? String),
                ],
                headers: iOSSDKHeaders, auth: .none)
            #expect(refresh.status == 200, "\(refresh)")
            let token = try #require(refresh.json["id_token"] as? String)
            #expect(try jwtPayload(token)["user_id"] as? String == uid)

            let renamed = try kura.firebase(
                "\(v3)/setAccountInfo", ["idToken": token, "displayName": "Grace", "returnSecureToken": true],
                headers: iOSSDKHeaders)
            #expect(renamed.json["displayName"] as? String == "Grace", "\(renamed)")
            let password = try kura.firebase(
                "\(v3)/setAccountInfo", ["idToken": token, "password": "new-secret", "returnSecureToken": true],
                headers: iOSSDKHeaders)
            #expect(password.status == 200, "\(password)")
            let info = try kura.firebase("\(v3)/getAccountInfo", ["idToken": token], headers: iOSSDKHeaders)
            let user = try #require((info.json["users"] as? [[String: Any]])?.first)
            #expect(user["displayName"] as? String == "Grace")
            let deleted = try kura.firebase("\(v3)/deleteAccount", ["idToken": token], headers: iOSSDKHeaders)
            #expect(deleted.status == 200, "\(deleted)")
            let again = try kura.firebase(
                "\(v3)/verifyPassword", ["email": email, "password": "new-secret", "returnSecureToken": true],
                headers: iOSSDKHeaders)
            #expect(JSON.equal(again.json, firebaseErrorBody("INVALID_LOGIN_CREDENTIALS")), "\(again)")
        }
    }

    @Test("password reset: sendOobCode answers alike for unknown addresses; resetPassword checks, then sets")
    func passwordReset() throws {
        try withFirebaseKura { kura in
            let email = "linus@example.com"
            _ = try kura.firebase("\(v1)/accounts:signUp", ["email": email, "password": "secret-pw"])
            for address in [email, "nobody@example.com"] {
                let sent = try kura.firebase(
                    "\(v1)/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": address])
                #expect(sent.status == 200, "\(sent)")
                #expect(sent.json["email"] as? String == address)
            }
            #expect(try kura.oobCodes("nobody@example.com", "PASSWORD_RESET").isEmpty)
            let code = try #require(try kura.oobCodes(email, "PASSWORD_RESET").last)
            let check = try kura.firebase("\(v1)/accounts:resetPassword", ["oobCode": code])
            #expect(check.json["email"] as? String == email, "\(check)")
            #expect(check.json["requestType"] as? String == "PASSWORD_RESET")
            let reset = try kura.firebase("\(v1)/accounts:resetPassword", ["oobCode": code, "newPassword": "reset-pw"])
            #expect(reset.status == 200, "\(reset)")
            let again = try kura.firebase("\(v1)/accounts:resetPassword", ["oobCode": code, "newPassword": "reset-pw"])
            #expect(JSON.equal(again.json, firebaseErrorBody("INVALID_OOB_CODE")), "\(again)")
            let signIn = try kura.firebase(
                "\(v1)/accounts:signInWithPassword",
                ["email": email, "password": "reset-pw", "returnSecureToken": true])
            #expect(signIn.status == 200, "\(signIn)")
        }
    }

    @Test("error bodies are Firebase's, exactly")
    func errorBodies() throws {
        try withFirebaseKura { kura in
            let body: [String: Any] = ["email": "ada@example.com", "password": "secret-pw", "returnSecureToken": true]
            #expect(try kura.firebase("\(v1)/accounts:signUp", body).status == 200)
            let cases: [(String, [String: Any], String)] = [
                ("\(v1)/accounts:signUp", body, "EMAIL_EXISTS"),
                (
                    "\(v1)/accounts:signUp", ["email": "b@example.com", "password": "123"],
                    "WEAK_PASSWORD : Password should be at least 6 characters"
                ),
                ("\(v1)/accounts:signUp", ["email": "not-an-address", "password": "secret-pw"], "INVALID_EMAIL"),
                ("\(v1)/accounts:signUp", ["email": "c@example.com"], "MISSING_PASSWORD"),
                (
                    "\(v1)/accounts:signInWithPassword", ["email": "ada@example.com", "password": "wrong-pw"],
                    "INVALID_LOGIN_CREDENTIALS"
                ),
                ("\(v1)/accounts:lookup", ["idToken": "not-a-token"], "INVALID_ID_TOKEN"),
                ("\(v1)/accounts:lookup", [:], "MISSING_ID_TOKEN"),
                ("\(v1)/accounts:update", ["oobCode": "no-such-code"], "INVALID_OOB_CODE"),
                (
                    "/securetoken.googleapis.com/v1/token", ["grantType": "refresh_token", "refreshToken": "x"],
                    "INVALID_REFRESH_TOKEN"
                ),
                ("/securetoken.googleapis.com/v1/token", ["grantType": "password"], "INVALID_GRANT_TYPE"),
            ]
            for (path, request, message) in cases {
                let answer = try kura.firebase(path, request)
                #expect(answer.status == 400, "\(path) \(request): \(answer)")
                #expect(JSON.equal(answer.json, firebaseErrorBody(message)), "\(path) \(request): \(answer)")
            }
        }
    }

    @Test("the endpoints are off by default, and on they need a project id")
    func offByDefault() throws {
        try withAuthKura { kura in
            let answer = try kura.firebase(
                "\(v1)/accounts:signUp", ["email": "a@example.com", "password": "secret-pw"])
            #expect(answer.status == 404)
        }
        var configuration = KuraConfiguration()
        try configuration.set("compat.firebaseAuth", "true")
        configuration.dataDirectory = TemporaryDirectory.uniquePath("compat")
        #expect(throws: ConfigurationError.self) { _ = try KuraNode(configuration: configuration) }
        try? FileManager.default.removeItem(atPath: configuration.dataDirectory)
    }

    @Test("a token from the Firebase sign-up meets the rules as any other")
    func rulesTakeFirebaseTokens() throws {
        let rules = """
            rules_version = '1';
            match /users/{uid} {
              allow read, write: if request.auth.uid == uid && request.auth.token.email == 'ada@example.com';
            }
            """
        try withFirebaseKura(rules: rules) { kura in
            let signUp = try kura.firebase(
                "\(v1)/accounts:signUp",
                ["email": "ada@example.com", "password": "secret-pw", "returnSecureToken": true])
            let uid = try #require(signUp.json["localId"] as? String)
            let token = try #require(signUp.json["idToken"] as? String)
            let own = try kura.request("PUT", "/api/docs/users/\(uid)", json: ["data": ["a": 1]], token: token)
            #expect(own.status == 200, "\(own)")
            let other = try kura.request("PUT", "/api/docs/users/someone-else", json: ["data": ["a": 1]], token: token)
            #expect(other.status == 403, "\(other)")
        }
    }

    @Test("the sign-in throttle counts failures on both APIs alike, and answers in each one's shape")
    func sharedThrottle() throws {
        try withFirebaseKura(configure: {
            $0.auth.rateLimits.enabled = true
            $0.auth.rateLimits.perIP = RateLimit(burst: 2, refillInterval: 3600)
        }) { kura in
            _ = try kura.signUp("ada@example.com")
            #expect(try kura.signInResponse("ada@example.com", "wrong-pw").status == 400)
            let failed = try kura.firebase(
                "\(v1)/accounts:signInWithPassword", ["email": "ada@example.com", "password": "wrong-pw"])
            #expect(failed.errorCode == "INVALID_LOGIN_CREDENTIALS", "\(failed)")
            // The address has used up its failures: even the right password waits.
            let throttled = try kura.firebase(
                "\(v1)/accounts:signInWithPassword", ["email": "ada@example.com", "password": "secret-pw"])
            #expect(throttled.status == 400)
            #expect(JSON.equal(throttled.json, firebaseErrorBody("TOO_MANY_ATTEMPTS_TRY_LATER")), "\(throttled)")
            #expect(throttled.header("Retry-After") != nil)
            let kuraThrottled = try kura.signInResponse("ada@example.com", "secret-pw")
            #expect(kuraThrottled.status == 429)
            #expect(kuraThrottled.errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
        }
    }

    @Test("with compat on, Kura's own sign-in hands out Firebase tokens and the Firebase calls take them")
    func kuraTokensAreFirebaseTokens() throws {
        try withFirebaseKura { kura in
            let session = try kura.signUp("kura@example.com")
            let claims = try jwtPayload(session.idToken)
            #expect(claims["iss"] as? String == "https://securetoken.google.com/\(firebaseProject)")
            #expect(claims["user_id"] as? String == session.uid)
            let lookup = try kura.firebase("\(v1)/accounts:lookup", ["idToken": session.idToken])
            #expect((lookup.json["users"] as? [[String: Any]])?.first?["localId"] as? String == session.uid)
        }
    }
}
