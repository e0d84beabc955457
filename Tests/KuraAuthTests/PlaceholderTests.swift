import Testing

@testable import KuraAuth

@Test func authModuleBuilds() { #expect(Bool(true)) }
