import Testing

@testable import KuraMail

@Test func mailModuleBuilds() { #expect(Bool(true)) }
