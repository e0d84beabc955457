import Foundation

/// The `kura` executable built next to this test bundle (`swift build --build-tests` builds every product).
enum KuraBinary {
    static var url: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("kura")
    }
}
