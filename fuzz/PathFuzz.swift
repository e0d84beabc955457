// libFuzzer harness for document and collection paths, IDs and field paths (KuraModel: ResourcePath, FieldPath,
// ByteIdentity). The input is two strings (the first byte says where the second starts).
// Properties: a path is accepted exactly when a plain reading of the rules in docs/api.md ("Paths") accepts it, with
// the same segments; description → parse gives the same path; two paths (and field paths) are equal exactly when
// their segments' UTF-8 bytes are (never by canonical equivalence: "Identity"), equal ones hash alike, and `<` is the
// segment-by-segment byte order.
import KuraModel

@_cdecl("LLVMFuzzerTestOneInput")
public func pathFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let cut = min(bytes.count, 1 + Int(bytes[0]))
    let first = String(decoding: bytes[1..<cut], as: UTF8.self)
    let second = String(decoding: bytes[cut...], as: UTF8.self)
    let documents = [first, second].map { checkPath($0) }
    if let a = documents[0], let b = documents[1] { checkPair(a, b) }
    let fields = [first, second].map { checkFieldPath($0) }
    if let a = fields[0], let b = fields[1] {
        require(
            (a == b) == (a.segments.map { Array($0.utf8) } == b.segments.map { Array($0.utf8) }),
            "field paths \(a) and \(b): == is not byte equality")
        if a == b { require(a.hashValue == b.hashValue, "equal field paths \(a) hash differently") }
    }
    return 0
}

/// The segments the rules allow for `string`, or nil: one leading and one trailing `/` dropped, split at `/`, each
/// 1–1500 bytes, not `.` or `..`, not `__…__`, at most 100.
private func referenceSegments(_ string: String) -> [[UInt8]]? {
    var bytes = Array(string.utf8)[...]
    if bytes.first == UInt8(ascii: "/") { bytes = bytes.dropFirst() }
    if bytes.last == UInt8(ascii: "/") { bytes = bytes.dropLast() }
    guard !bytes.isEmpty else { return nil }
    let segments = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map(Array.init)
    guard segments.count <= 100 else { return nil }
    for segment in segments {
        guard (1...1500).contains(segment.count), segment != [0x2E], segment != [0x2E, 0x2E] else { return nil }
        let underscores: [UInt8] = [0x5F, 0x5F]
        if segment.count >= 4, Array(segment.prefix(2)) == underscores, Array(segment.suffix(2)) == underscores {
            return nil
        }
    }
    return segments
}

private func bytes(_ segments: [String]) -> [[UInt8]] { segments.map { Array($0.utf8) } }

/// Parses `string` as a document and as a collection path and checks both against the reference reading.
private func checkPath(_ string: String) -> DocumentPath? {
    let expected = referenceSegments(string)
    let document = try? DocumentPath(string)
    let collection = try? CollectionPath(string)
    switch expected {
    case nil:
        require(document == nil && collection == nil, "'\(string)' accepted against the rules")
    case let segments?:
        require((document != nil) == (segments.count % 2 == 0), "'\(string)' as a document path")
        require((collection != nil) == (segments.count % 2 == 1), "'\(string)' as a collection path")
        if let document { require(bytes(document.segments) == segments, "'\(string)' split differently") }
        if let collection { require(bytes(collection.segments) == segments, "'\(string)' split differently") }
    }
    if let document {
        let again = try? DocumentPath(document.description)
        require(again == document, "'\(document)' does not parse back to itself")
        let rebuilt = try? DocumentPath(collection: document.collection, id: document.id)
        require(rebuilt == document, "'\(document)': collection + id is another path")
        require(
            document.collection.description.utf8.count + 1 + document.id.utf8.count
                == document.description.utf8.count, "'\(document)': collection and id do not add up")
    }
    if let collection {
        require((try? CollectionPath(collection.description)) == collection, "'\(collection)' does not parse back")
        if let parent = collection.parent {
            require(bytes(parent.segments) == bytes(Array(collection.segments.dropLast())), "'\(collection)' parent")
        }
    }
    return document
}

private func checkPair(_ a: DocumentPath, _ b: DocumentPath) {
    let (x, y) = (bytes(a.segments), bytes(b.segments))
    require((a == b) == (x == y), "'\(a)' == '\(b)' is not byte equality")
    if a == b { require(a.hashValue == b.hashValue, "equal paths '\(a)' hash differently") }
    require(Set([a, b]).count == (x == y ? 1 : 2), "a set of '\(a)' and '\(b)'")
    // Segment by segment, each by bytes; a prefix sorts first.
    let expected = x.lexicographicallyPrecedes(y) { $0.lexicographicallyPrecedes($1) }
    require((a < b) == expected, "'\(a)' < '\(b)' is not the byte order")
    require(!(a < b && b < a), "'\(a)' and '\(b)' each sort first")
}

private func checkFieldPath(_ string: String) -> FieldPath? {
    guard let path = try? FieldPath(string) else { return nil }
    require(path.segments.allSatisfy { !$0.isEmpty }, "'\(string)' gave an empty field name")
    let again = try? FieldPath(path.description)
    require(again == path, "field path '\(string)' → '\(path)' does not parse back to itself")
    require(again?.description.utf8.elementsEqual(path.description.utf8) == true, "'\(path)' description unstable")
    // Each segment alone, quoted as the dotted form quotes it, is one segment.
    for segment in path.segments {
        let single = try? FieldPath(segments: [segment])
        require((try? FieldPath(single!.description))?.segments.count == 1, "segment '\(segment)' splits")
    }
    return path
}
