import Testing

@testable import KuraMail

@Suite struct TemplateTests {
    typealias Template = @Sendable (String, String, String, MailLanguage) -> MailMessage

    static let templates: [(String, Template)] = [
        ("verification", { MailTemplates.verification(to: $0, link: $1, appName: $2, language: $3) }),
        ("passwordReset", { MailTemplates.passwordReset(to: $0, link: $1, appName: $2, language: $3) }),
        (
            "emailChange",
            { MailTemplates.emailChange(to: $0, previousEmail: "old@example.com", link: $1, appName: $2, language: $3) }
        ),
    ]

    @Test(arguments: 0..<3, MailLanguage.allCases)
    func everyTemplateCarriesTheLinkInBothParts(template: Int, language: MailLanguage) throws {
        let link = "https://app.example.com/__/auth/action?mode=x&oobCode=ABC123"
        let message = Self.templates[template].1("user@example.com", link, "Kura <Test>", language)
        #expect(message.to == "user@example.com")
        #expect(message.actionLink == link)
        #expect(message.text.contains(link))
        #expect(message.html.contains("href=\"https://app.example.com/__/auth/action?mode=x&amp;oobCode=ABC123\""))
        #expect(message.subject.contains("Kura <Test>"))
        #expect(message.html.contains("Kura &lt;Test&gt;"))
        #expect(!message.html.contains("<Test>"))
        let japanese = message.subject.unicodeScalars.contains { $0.value >= 0x3040 }
        #expect(japanese == (language == .japanese))
        try message.validate()
    }
}

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(base: .seconds(1), max: .seconds(300))

    @Test(arguments: [(1, 1000), (2, 2000), (3, 4000), (9, 256_000), (10, 300_000), (1000, 300_000)])
    func exponentialCappedWithoutJitter(attempt: Int, millis: Int64) {
        #expect(policy.delay(afterAttempt: attempt, jitter: 0.999_999) == .milliseconds(millis))
        #expect(policy.delay(afterAttempt: attempt, jitter: 0) == .milliseconds(millis / 2))
    }

    @Test func jitterStaysWithinHalfToFullStep() {
        for _ in 0..<100 {
            let delay = policy.delay(afterAttempt: 4, jitter: Double.random(in: 0..<1))
            #expect(delay >= .milliseconds(4000) && delay <= .milliseconds(8000))
        }
    }
}
