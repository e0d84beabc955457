import Testing

@testable import KuraClient

/// The SDK's `text/event-stream` parser (the WHATWG rules), apart from any server.
@Suite struct EventStreamParserTests {
    @Test("blocks give messages; an id-only block moves the position; comments are skipped")
    func messages() {
        var parser = ServerSentEventParser()
        let messages = parser.feed(Array(": hi\r\nevent: change\nid: 7\ndata: a\ndata:b\n\nid: 8\r\n\r\n".utf8))
        #expect(
            messages == [
                ServerSentEvent(event: "change", data: "a\nb", id: "7"), ServerSentEvent(event: nil, data: "", id: "8"),
            ])
    }

    @Test("an id holding U+0000 is ignored, also when a combining mark follows the NUL")
    func nulInID() {
        // Found by fuzz/diff.sh (kura.js ignored the id, the Swift SDK kept it): "\0" + U+0307 is one Character.
        var parser = ServerSentEventParser()
        let messages = parser.feed(Array("id: a\u{0}\u{0307}b\ndata: x\n\nid: c\u{0}\ndata: y\n\n".utf8))
        #expect(
            messages == [
                ServerSentEvent(event: "message", data: "x", id: nil),
                ServerSentEvent(event: "message", data: "y", id: nil),
            ])
    }

    @Test("one leading byte order mark is ignored, also when it arrives a byte at a time; a second one is text")
    func byteOrderMark() {
        // Found by fuzz/diff.sh: kura.js (TextDecoder) dropped the mark, the Swift SDK read "\u{FEFF}data" as a field.
        let stream: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("data: x\n\n".utf8)
        var whole = ServerSentEventParser()
        #expect(whole.feed(stream) == [ServerSentEvent(event: "message", data: "x", id: nil)])
        var split = ServerSentEventParser()
        #expect(stream.flatMap { split.feed([$0]) } == [ServerSentEvent(event: "message", data: "x", id: nil)])
        var twice = ServerSentEventParser()
        #expect(twice.feed([0xEF, 0xBB, 0xBF] + stream).isEmpty)
    }
}
