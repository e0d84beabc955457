import KuraAuth
import KuraCore
import KuraHTTP
import KuraMail
import KuraModel

/// `/auth/action`: the page a mail's link opens, so verification and password reset work from any mail client
/// with no app. GET checks the code without spending it and shows a form, or a page that says why the link cannot
/// be used (it changes nothing, so link scanners that prefetch mail links cannot use up a code); submitting the
/// form (POST, form-encoded) performs the action and shows the outcome. The page speaks the mail's language (the
/// link's `lang`), else the browser's (`Accept-Language`), and leads back to the app at the link's `continueUrl`
/// when `ContinueURLPolicy` allows it.
///
/// The page carries a one-time code and a password form, so every answer is marked not to be stored, framed,
/// sniffed or leaked through the `Referer`, and its policy lets it load nothing but its own stylesheet, script and
/// icon (`/auth/action.css`, `/auth/action.js`, `/auth/favicon.svg`) and post nowhere but to itself.
struct ActionPageRoutes {
    /// `Content-Security-Policy` of the page: its same-origin stylesheet, script and icon, its own form.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'"

    /// What every answer of `/auth/action` carries: the page's own, its errors (a malformed query string, a method
    /// it lacks, a full worker queue) and the router's.
    static let securityHeaders: HTTPHeaders = [
        "Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": contentSecurityPolicy,
    ]

    let auth: AuthService
    let confirmEmail: @Sendable (String) throws -> AuthUser
    let appName: String
    let continueURLs: ContinueURLPolicy

    /// What a request asked for: the action, its code, the page's language and where to lead back to.
    struct Visit: Sendable {
        var mode: String?
        var code: String
        var text: ActionPageText
        /// `continueUrl`, when the policy allows it (anything else is dropped, not followed).
        var continueURL: String?
    }

    func register(on router: Router<KuraContext>) {
        Self.registerAssets(on: router)
        router.addHeaders(Self.securityHeaders, toErrorsAt: "/auth/action")
        router.get("/auth/action") { request, context in
            let visit = visit(
                mode: request.query("mode"), code: request.query("code"), lang: request.query("lang"),
                continueURL: request.query("continueUrl"), request: request)
            guard let mode = visit.mode, mode == "verifyEmail" || mode == "resetPassword", !visit.code.isEmpty else {
                return page(
                    visit, .problem, visit.text.incompleteTitle, "<p>\(visit.text.incompleteLead)</p>", status: 400)
            }
            let switchLink = languageSwitch(request, visit)
            return Self.offload(context.environment) {
                let details: ActionCodeDetails
                do {
                    details = try auth.checkActionCode(code: visit.code)
                } catch {
                    guard let error = APIError(answering: error) else { throw error }
                    return unusable(visit, code: error.code.rawValue, status: error.status, switchLink: switchLink)
                }
                let fitsMode = mode == "resetPassword" ? details.kind == .passwordReset : details.kind != .passwordReset
                guard fitsMode else {
                    return unusable(visit, code: ErrorCode.invalidOOBCode.rawValue, status: 400, switchLink: switchLink)
                }
                return mode == "resetPassword"
                    ? resetForm(visit, email: details.email, error: nil, switchLink: switchLink)
                    : page(
                        visit, .ask, visit.text.confirmTitle,
                        "<p class=\"lead\">\(visit.text.confirmLead(details.email))</p>"
                            + form(visit, fields: "", button: visit.text.confirmButton), switchLink: switchLink)
            }
        }
        router.post("/auth/action") { request, context in
            Self.offload(context.environment) {
                let fields = Substring(String(decoding: request.body, as: UTF8.self))
                let visit = visit(
                    mode: URLEncodedForm.value(of: "mode", in: fields),
                    code: URLEncodedForm.value(of: "code", in: fields),
                    lang: URLEncodedForm.value(of: "lang", in: fields),
                    continueURL: URLEncodedForm.value(of: "continueUrl", in: fields), request: request)
                do {
                    switch visit.mode {
                    case "verifyEmail":
                        let user = try confirmEmail(visit.code)
                        return page(
                            visit, .done, visit.text.confirmedTitle,
                            "<p class=\"lead\">\(visit.text.confirmedLead(user.email))</p>" + leadBack(visit))
                    case "resetPassword":
                        let password = URLEncodedForm.value(of: "newPassword", in: fields) ?? ""
                        do {
                            try auth.confirmPasswordReset(code: visit.code, newPassword: password)
                        } catch let error as APIError
                            where [.weakPassword, .missingPassword, .invalidArgument].contains(error.code)
                        {
                            // The code is not spent: the form again, saying what to change.
                            let details = try auth.checkActionCode(code: visit.code)
                            return resetForm(visit, email: details.email, error: error, switchLink: "", status: 400)
                        }
                        return page(
                            visit, .done, visit.text.changedTitle,
                            "<p class=\"lead\">\(visit.text.changedLead)</p>" + leadBack(visit))
                    default:
                        return page(
                            visit, .problem, visit.text.incompleteTitle, "<p>\(visit.text.incompleteLead)</p>",
                            status: 400)
                    }
                } catch {
                    guard let error = APIError(answering: error) else { throw error }
                    return unusable(visit, code: error.code.rawValue, status: error.status, switchLink: "")
                }
            }
        }
    }

    /// The stylesheet, the script and the icon.
    static func registerAssets(on router: Router<KuraContext>) {
        for (path, type, body) in [
            ("/auth/action.css", "text/css; charset=utf-8", ActionPageAssets.stylesheet),
            ("/auth/action.js", "text/javascript; charset=utf-8", ActionPageAssets.script),
            ("/auth/favicon.svg", "image/svg+xml", ActionPageAssets.icon),
        ] {
            let bytes = Array(body.utf8)
            router.get(path) { _, _ in
                var response = Response(status: 200, headers: ["Content-Type": type], body: bytes)
                response.headers.add("X-Content-Type-Options", "nosniff")
                response.headers.add("Cache-Control", "public, max-age=3600")
                return response
            }
        }
    }

    private func visit(mode: String?, code: String?, lang: String?, continueURL: String?, request: Request) -> Visit {
        let language =
            lang.flatMap { MailLanguage(rawValue: String($0.lowercased().prefix(2))) }
            ?? MailLanguage.preferred(acceptLanguage: request.headers["Accept-Language"])
        return Visit(
            mode: mode, code: code ?? "", text: ActionPageText(language: language),
            continueURL: continueURL.flatMap { continueURLs.allows($0) ? $0 : nil })
    }

    /// A link to this page in the other language (GET pages only: a result page cannot be asked for again).
    private func languageSwitch(_ request: Request, _ visit: Visit) -> String {
        var query =
            "mode=\(AccountMailer.queryEscaped(visit.mode ?? ""))&code=\(AccountMailer.queryEscaped(visit.code))"
        query += "&lang=\(visit.text.otherLanguage.rawValue)"
        if let url = visit.continueURL { query += "&continueUrl=\(AccountMailer.queryEscaped(url))" }
        let other = visit.text.otherLanguage
        return """
            <a class="lang" href="/auth/action?\(query.htmlEscaped)" lang="\(other.rawValue)" \
            hreflang="\(other.rawValue)">\(visit.text.otherLanguageName)</a>
            """
    }

    private func unusable(_ visit: Visit, code: String, status: Int, switchLink: String) -> Response {
        let minimum = auth.configuration.minPasswordLength
        return page(
            visit, .problem, visit.text.unusableTitle,
            """
            <p class="lead">\(visit.text.explain(code, minimumPassword: minimum).htmlEscaped)</p>
            <p>\(visit.text.askAgain.htmlEscaped)</p>
            \(leadBack(visit, closeHint: false))
            <p class="fine">\(visit.text.errorCode(code).htmlEscaped)</p>
            """, status: status, switchLink: switchLink)
    }

    private func resetForm(
        _ visit: Visit, email: String, error: APIError?, switchLink: String, status: Int = 200
    ) -> Response {
        let minimum = auth.configuration.minPasswordLength
        let text = visit.text
        var alert = ""
        if let error {
            alert = """
                <p class="alert" role="alert">\(text.explain(error.code.rawValue, minimumPassword: minimum).htmlEscaped) \
                <span class="fine">(\(error.code.rawValue))</span></p>
                """
        }
        let fields = """
            \(alert)<label for="new-password">\(text.passwordLabel.htmlEscaped)</label>
            <p class="hint" id="password-rules">\(text.passwordRules(minimum).htmlEscaped)</p>
            <div class="password"><input type="password" id="new-password" name="newPassword" minlength="\(minimum)" \
            required autocomplete="new-password" aria-describedby="password-rules"\(error == nil ? "" : " autofocus")>
            <button type="button" class="reveal" aria-controls="new-password" aria-pressed="false" \
            aria-label="\(text.showLabel.htmlEscaped)" data-show="\(text.show.htmlEscaped)" \
            data-hide="\(text.hide.htmlEscaped)" hidden>\(text.show.htmlEscaped)</button></div>
            """
        return page(
            visit, .ask, text.resetTitle,
            "<p class=\"lead\">\(text.resetLead(email))</p>" + form(visit, fields: fields, button: text.saveButton),
            status: status, switchLink: switchLink)
    }

    /// "Back to the app" when the link names where to go, else a hint that the page may be closed.
    private func leadBack(_ visit: Visit, closeHint: Bool = true) -> String {
        if let url = visit.continueURL {
            return
                "<p class=\"actions\"><a class=\"button\" href=\"\(url.htmlEscaped)\">\(visit.text.backToApp.htmlEscaped)</a></p>"
        }
        return closeHint ? "<p class=\"fine\">\(visit.text.closeHint.htmlEscaped)</p>" : ""
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

    private func form(_ visit: Visit, fields: String, button: String) -> String {
        var hidden = """
            <input type="hidden" name="mode" value="\((visit.mode ?? "").htmlEscaped)">
            <input type="hidden" name="code" value="\(visit.code.htmlEscaped)">
            <input type="hidden" name="lang" value="\(visit.text.language.rawValue)">
            """
        if let url = visit.continueURL {
            hidden += "\n<input type=\"hidden\" name=\"continueUrl\" value=\"\(url.htmlEscaped)\">"
        }
        return """
            <form method="post" action="/auth/action">
            \(hidden)
            \(fields)
            <button type="submit" class="primary">\(button.htmlEscaped)</button>
            </form>
            """
    }

    /// How a page looks: asking for something, done, or a problem.
    enum Tone: String {
        case ask, done, problem
        var badge: String {
            switch self {
            case .ask: "@"
            case .done: "✓"
            case .problem: "!"
            }
        }
    }

    private func page(
        _ visit: Visit, _ tone: Tone, _ title: String, _ content: String, status: Int = 200, switchLink: String = ""
    ) -> Response {
        let text = visit.text
        var response = Response.html(
            """
            <!doctype html>
            <html lang="\(text.language.rawValue)"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title.htmlEscaped) · \(appName.htmlEscaped)</title>
            <link rel="icon" href="/auth/favicon.svg" type="image/svg+xml">
            <link rel="stylesheet" href="/auth/action.css">
            <script src="/auth/action.js" defer></script></head>
            <body>
            <header class="bar"><div class="bar-inner"><span class="brand"><img src="/auth/favicon.svg" alt="" \
            width="32" height="32">\(appName.htmlEscaped)</span>\(switchLink)</div></header>
            <main id="main"><section class="panel \(tone.rawValue)" aria-labelledby="title">
            <div class="badge" aria-hidden="true">\(tone.badge)</div>
            <h1 id="title">\(title.htmlEscaped)</h1>
            \(content)
            </section></main>
            <footer class="foot"><p>\(appName == "Kura" ? "Kura" : "\(appName.htmlEscaped) · Kura")</p></footer>
            </body></html>
            """, status: status)
        for field in Self.securityHeaders { response.headers.add(field.name, field.value) }
        return response
    }
}
