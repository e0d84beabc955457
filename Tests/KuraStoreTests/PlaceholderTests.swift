import Testing

@testable import KuraStore

@Test func storeModuleBuilds() {
    #expect(Bool(true))
}
