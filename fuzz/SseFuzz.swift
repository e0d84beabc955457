// libFuzzer harness for the Swift SDK's Server-Sent Events parser (KuraClient's ServerSentEventParser), compiled into
// the KuraClient sources so it reaches the internal type. The input is (control, stream) as in FuzzSupport.swift.
// Properties: the stream fed whole, cut at fuzzer-chosen points and one byte at a time gives the same messages;
// writing those messages out as an event stream and parsing that again gives them back.
import Foundation
internal import KuraModel

@_cdecl("LLVMFuzzerTestOneInput")
public func sseFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let (control, stream) = splitInput(data, size)
    var whole = ServerSentEventParser()
    let expected = whole.feed(stream)
    var cut = ServerSentEventParser()
    var got: [ServerSentEvent] = []
    for piece in pieces(of: stream.count, control: control) { got += cut.feed(stream[piece]) }
    require(got == expected, "a split stream gave other messages:\n\(expected)\n\(got)")
    var single = ServerSentEventParser()
    got = stream.flatMap { single.feed([$0]) }
    require(got == expected, "the stream fed byte by byte gave other messages:\n\(expected)\n\(got)")
    var again = ServerSentEventParser()
    let written = expected.flatMap(serialize)
    let reread = again.feed(written)
    require(reread == expected, "written out and read again:\n\(expected)\n\(reread)")
    record(stream, expected)
    return 0
}

/// With KURA_FUZZ_RECORD=FILE, each stream (base64) and the messages it gave are appended to FILE as a JSON line,
/// for fuzz/sse-diff.mjs to compare with kura.js's parser.
nonisolated(unsafe) private let recordFile: UnsafeMutablePointer<FILE>? = getenv("KURA_FUZZ_RECORD").flatMap {
    fopen($0, "a")
}

private func record(_ stream: [UInt8], _ messages: [ServerSentEvent]) {
    guard let recordFile else { return }
    let line: JSONValue = .object([
        "stream": .string(Data(stream).base64EncodedString()),
        "messages": .array(
            messages.map {
                .object([
                    "event": $0.event.map(JSONValue.string) ?? .null, "data": .string($0.data),
                    "id": $0.id.map(JSONValue.string) ?? .null,
                ])
            }),
    ])
    fputs(line.jsonString + "\n", recordFile)
}

/// One message as an event stream block (what Kura's server writes: `event:`, `id:`, one `data:` per line).
private func serialize(_ message: ServerSentEvent) -> [UInt8] {
    var text = ""
    if let event = message.event {
        text += "event: \(event)\n"
        if let id = message.id { text += "id: \(id)\n" }
        // By bytes: a `Character` split would keep "\r\n" (one Character) whole.
        for line in message.data.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            text += "data: \(String(decoding: line, as: UTF8.self))\n"
        }
    } else if let id = message.id {
        text += "id: \(id)\n"
    }
    return Array((text + "\n").utf8)
}
