import KuraServer
import Testing

/// Unknown `KURA_*` variables: one warning each, with the nearest setting's variable when one is near; settings and
/// the variables Kura reads otherwise are not warned about.
@Suite struct ConfigurationEnvironmentTests {
    @Test("one warning per unknown KURA_ variable, with a suggestion when one is near")
    func warnings() {
        let warnings = KuraConfiguration.environmentWarnings([
            "KURA_AUTH_PUBLICURL": "x", "KURA_PROT": "1", "KURA_HTTPMAXBODYBYTES": "1", "KURA_ZZZZZZZZZZ": "1",
            "KURA_PORT": "1", "KURA_HTTP_MAX_BODY_BYTES": "1", "KURA_SMTP_STARTTLS": "none", "KURA_CONFIG": "/x",
            "KURA_TEST_POSTGRES_URL": "x", "KURA_TEST_PYTHON": "x", "KURA_TODO_SESSION": "x", "KURA_SERVER": "x",
            "KURA_BIN": "x", "KURA_ARGS": "x", "KURA_BROWSER_ARGS": "x", "HOME": "/root", "PGPASSWORD": "x",
            "kura_port": "1",
        ])
        #expect(
            warnings == [
                "environment variable KURA_AUTH_PUBLICURL names no setting and is ignored; did you mean "
                    + "KURA_AUTH_PUBLIC_URL (auth.publicURL)?",
                "environment variable KURA_HTTPMAXBODYBYTES names no setting and is ignored; did you mean "
                    + "KURA_HTTP_MAX_BODY_BYTES (http.maxBodyBytes)?",
                "environment variable KURA_PROT names no setting and is ignored; did you mean KURA_PORT (port)?",
                "environment variable KURA_ZZZZZZZZZZ names no setting and is ignored",
            ])
    }

    @Test("every setting's own variable passes")
    func settingsPass() {
        let environment = Dictionary(
            uniqueKeysWithValues: KuraConfiguration.settings.map { ($0.environmentName, "x") })
        #expect(KuraConfiguration.environmentWarnings(environment).isEmpty)
        #expect(KuraConfiguration.environmentWarnings([:]).isEmpty)
        #expect(
            KuraConfiguration.environmentWarnings(["KURA_": "x"]) == [
                "environment variable KURA_ names no setting and is ignored"
            ])
    }
}
