import Foundation
import KuraServer
import KuraServerTestSupport
import KuraTestSupport

/// A hosting root for one test, with a directory beside it that it must never reveal; removed by `remove()`.
struct HostingFixture {
    let base: String
    var root: String { base + "/public" }
    var outside: String { base + "/outside" }

    init() throws {
        base = try TemporaryDirectory("hosting").path
        let files = FileManager.default
        for directory in [root, root + "/assets", root + "/docs", root + "/.git", outside] {
            try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try write("index.html", "<!doctype html><title>home</title><p>the app</p>")
        try write("app.js", Self.script)
        try write("docs/index.html", "<!doctype html><title>docs</title>")
        try write("assets/logo.png", String(repeating: "\u{1}PNG", count: 100))
        try write("assets/app.3f2a.css", String(repeating: "body { color: red; }\n", count: 40))
        try write(".env", "SECRET=1")
        try write(".git/config", "[core]")
        try "top secret".write(toFile: outside + "/secret.txt", atomically: true, encoding: .utf8)
        try files.createSymbolicLink(atPath: root + "/leak.txt", withDestinationPath: outside + "/secret.txt")
        try files.createSymbolicLink(atPath: root + "/outside-dir", withDestinationPath: outside)
        try files.createSymbolicLink(atPath: root + "/env.txt", withDestinationPath: root + "/.env")
        try files.createSymbolicLink(atPath: root + "/alias.js", withDestinationPath: "app.js")
    }

    /// A script long enough to be worth compressing.
    static let script = String(repeating: "export function greet(name) { return `hello ${name}`; }\n", count: 30)

    func write(_ path: String, _ text: String) throws {
        try text.write(toFile: root + "/" + path, atomically: false, encoding: .utf8)
    }

    func remove() { try? FileManager.default.removeItem(atPath: base) }
}

/// Runs `body` against a server hosting a fresh `HostingFixture`; `configure` adds settings.
func withHostingKura<T>(
    configure: (inout KuraConfiguration) throws -> Void = { _ in }, _ body: (TestKura, HostingFixture) throws -> T
) throws -> T {
    let fixture = try HostingFixture()
    defer { fixture.remove() }
    return try withTestKura(configure: {
        try $0.set("hosting.root", fixture.root)
        try configure(&$0)
    }) { server in try body(server, fixture) }
}

/// `bytes` decompressed by the system's gzip, to check Kura's encoding with an independent decoder.
func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
    // Close-on-exec pipes (CloseOnExecPipe): a process another test spawns meanwhile must not hold their ends.
    let input = try CloseOnExecPipe()
    let output = try CloseOnExecPipe()
    let process = try ChildProcess(
        "/bin/gzip", ["-dc"], standardInput: input.reading, standardOutput: output.writing)
    try input.reading.close()
    try output.writing.close()
    input.writing.write(Data(bytes))
    try input.writing.close()
    let data = output.reading.readDataToEndOfFile()
    let status = process.waitUntilExit()
    guard status == 0 else { throw TestFailure("gzip -dc exited \(status)") }
    return Array(data)
}
