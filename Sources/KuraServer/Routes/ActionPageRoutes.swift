import KuraAuth
import KuraCore
import KuraHTTP
import KuraModel

/// `/auth/action`: the page a mail's link opens, so verification and password reset work from any mail client
/// with no app. GET shows a form (it changes nothing, so link scanners that prefetch mail links cannot use up a
/// code); submitting the form (POST, form-encoded) performs the action and shows the outcome.
///
/// The page carries a one-time code and a password form, so every answer is marked not to be stored, framed,
/// sniffed or leaked through the `Referer`, and its policy lets it load nothing but its own stylesheet
/// (`/auth/action.css`) and post nowhere but to itself.
struct ActionPageRoutes {
    /// `Content-Security-Policy` of the page: no scripts at all, the same-origin stylesheet, its own form.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// What every answer of `/auth/action` carries: the page's own, its errors (a malformed query string, a method
    /// it lacks, a full worker queue) and the router's.
    static let securityHeaders: HTTPHeaders = [
        "Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": contentSecurityPolicy,
    ]

    /// The page's look, served as a file of its own so the policy needs no `'unsafe-inline'`.
    static let stylesheet = """
        body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
        input[type=password]{display:block;width:100%;margin-top:.3rem}

        """

    let auth: AuthService
    let confirmEmail: @Sendable (String) throws -> AuthUser
    let appName: String

    func register(on router: Router<KuraContext>) {
        router.get("/auth/action.css") { _, _ in
            var response = Response(
                status: 200, headers: ["Content-Type": "text/css; charset=utf-8"], body: Array(Self.stylesheet.utf8))
            response.headers.add("X-Content-Type-Options", "nosniff")
            response.headers.add("Cache-Control", "public, max-age=3600")
            return response
        }
        router.addHeaders(Self.securityHeaders, toErrorsAt: "/auth/action")
        router.get("/auth/action") { request, _ in
            let code = request.query("code") ?? ""
            switch request.query("mode") {
            case "verifyEmail":
                return page(
                    "Confirm your email", form(code: code, mode: "verifyEmail", fields: "", button: "Confirm my email"))
            case "resetPassword":
                let fields = """
                    <label>New password <input type="password" name="newPassword" minlength="6" required \
                    autocomplete="new-password"></label>
                    """
                return page(
                    "Choose a new password", form(code: code, mode: "resetPassword", fields: fields, button: "Save"))
            default:
                return page("Unknown action", "<p>This link is not valid.</p>", status: 400)
            }
        }
        router.post("/auth/action") { request, context in
            Self.offload(context.environment) {
                let fields = Substring(String(decoding: request.body, as: UTF8.self))
                do {
                    switch URLEncodedForm.value(of: "mode", in: fields) {
                    case "verifyEmail":
                        let user = try confirmEmail(URLEncodedForm.value(of: "code", in: fields) ?? "")
                        return page(
                            "Email confirmed",
                            "<p>\(user.email.htmlEscaped) is confirmed. You can go back to the app.</p>")
                    case "resetPassword":
                        try auth.confirmPasswordReset(
                            code: URLEncodedForm.value(of: "code", in: fields) ?? "",
                            newPassword: URLEncodedForm.value(of: "newPassword", in: fields) ?? "")
                        return page("Password changed", "<p>Your password is changed. Sign in with the new one.</p>")
                    default:
                        return page("Unknown action", "<p>This link is not valid.</p>", status: 400)
                    }
                } catch {
                    guard let error = APIError(answering: error) else { throw error }
                    return page(
                        "That did not work", "<p>\(error.message.htmlEscaped) (\(error.code))</p>", status: error.status
                    )
                }
            }
        }
    }

    /// `environment.offload`, with the security headers on the answers it makes itself (a full worker queue, an
    /// unexpected error).
    private static func offload(
        _ environment: RequestEnvironment, _ work: @escaping @Sendable () throws -> Response
    ) -> Response {
        let (workers, loop, logger, verbose) = (
            environment.workers, environment.eventLoop, environment.logger, environment.verboseErrors
        )
        return .later { promise in
            let secured = { @Sendable (error: any Error) -> Response in
                var response = ErrorResponses.response(
                    for: error, requestID: promise.requestID, logger: logger, verbose: verbose)
                for field in securityHeaders { response.headers.add(field.name, field.value) }
                return response
            }
            do {
                try workers.submit(on: loop, work) { result in
                    switch result {
                    case .success(let response): promise.succeed(response)
                    case .failure(let error): promise.succeed(secured(error))
                    }
                }
            } catch {
                promise.succeed(secured(error))
            }
        }
    }

    private func form(code: String, mode: String, fields: String, button: String) -> String {
        """
        <form method="post" action="/auth/action">
        <input type="hidden" name="mode" value="\(mode.htmlEscaped)">
        <input type="hidden" name="code" value="\(code.htmlEscaped)">
        \(fields)
        <p><button type="submit">\(button.htmlEscaped)</button></p>
        </form>
        """
    }

    private func page(_ title: String, _ content: String, status: Int = 200) -> Response {
        var response = Response.html(
            """
            <!doctype html>
            <html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>\(title.htmlEscaped) · \(appName.htmlEscaped)</title>
            <link rel="stylesheet" href="/auth/action.css"></head>
            <body><h1>\(title.htmlEscaped)</h1>
            \(content)
            </body></html>
            """, status: status)
        for field in Self.securityHeaders { response.headers.add(field.name, field.value) }
        return response
    }
}
