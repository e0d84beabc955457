import Testing

@testable import KuraMail

@Suite struct AcceptLanguageTests {
    @Test(
        arguments: [
            (nil, MailLanguage.english),
            ("", .english),
            ("ja", .japanese),
            ("ja-JP", .japanese),
            ("JA-jp", .japanese),
            ("en-US,en;q=0.9", .english),
            ("ja-JP,ja;q=0.9,en-US;q=0.8,en;q=0.7", .japanese),
            ("en;q=0.5, ja;q=0.8", .japanese),
            ("en, ja", .english),
            ("ja;q=0.5, en;q=0.5", .japanese),
            ("fr-FR,fr;q=0.9", .english),
            ("fr, ja;q=0.1", .japanese),
            ("ja;q=0", .english),
            ("ja;q=0, en;q=0.1", .english),
            ("ja;q=abc", .english),
            ("ja;q=1.5, en;q=0.2", .english),
            ("*", .english),
            ("zh-CN, *;q=0.1", .english),
            ("  ja-JP  ;  q=0.9  ", .japanese),
            ("jax, ja-Latn-JP;q=0.3", .japanese),
            (",,;", .english),
        ] as [(String?, MailLanguage)])
    func preferredLanguage(header: String?, expected: MailLanguage) {
        #expect(MailLanguage.preferred(acceptLanguage: header) == expected)
    }
}
