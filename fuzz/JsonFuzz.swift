// libFuzzer harness for Kura's JSON parser and serializer (KuraModel, JSONValue+Parser/Serializer).
// Properties: parse → serialize → parse gives the same value and the same bytes; object keys are unique by UTF-8
// bytes (a duplicate key is refused); an integer literal is kept exactly as an Int64 or refused, never rounded;
// every failure is a ValidationError (400), never a crash.
import KuraModel

@_cdecl("LLVMFuzzerTestOneInput")
public func jsonFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let value: JSONValue
    do {
        value = try JSONValue.parse(bytes)
    } catch {
        require(error is ValidationError, "parse threw \(type(of: error)), not a ValidationError")
        checkIntegerLiteral(bytes, parsed: nil)
        return 0
    }
    checkIntegerLiteral(bytes, parsed: value)
    checkUniqueKeys(value)
    let serialized = value.jsonBytes
    guard let again = try? JSONValue.parse(serialized) else {
        require(false, "the serialized form does not parse: \(String(decoding: serialized, as: UTF8.self))")
        return 0
    }
    require(again == value, "parse → serialize → parse changed the value: \(value.jsonString) → \(again.jsonString)")
    require(again.jsonBytes == serialized, "serializing twice gave other bytes: \(value.jsonString)")
    // Hashable agrees with ==.
    require(again.hashValue == value.hashValue, "equal values with different hashes: \(value.jsonString)")
    return 0
}

/// Every object's keys are distinct by bytes.
private func checkUniqueKeys(_ value: JSONValue) {
    switch value {
    case .object(let object):
        var seen = Set<ByteKey>()
        for member in object {
            require(seen.insert(ByteKey(member.key)).inserted, "duplicate key '\(member.key)' accepted")
            checkUniqueKeys(member.value)
        }
    case .array(let elements): elements.forEach(checkUniqueKeys)
    default: break
    }
}

/// A bare integer literal (with surrounding white space) parses to exactly that Int64, or is refused when it does
/// not fit: never rounded to a double.
private func checkIntegerLiteral(_ bytes: UnsafeBufferPointer<UInt8>, parsed: JSONValue?) {
    let whitespace: Set<UInt8> = [0x20, 0x0A, 0x0D, 0x09]
    guard let first = bytes.firstIndex(where: { !whitespace.contains($0) }),
        let last = bytes.lastIndex(where: { !whitespace.contains($0) })
    else { return }
    let token = Array(bytes[first...last])
    let digits = token.first == UInt8(ascii: "-") ? token.dropFirst() : token[...]
    guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }),
        digits.first != 0x30 || digits.count == 1
    else { return }
    let text = String(decoding: token, as: UTF8.self)
    switch (Int64(text), parsed) {
    case (let exact?, .int(let got)?): require(exact == got, "\(text) parsed as \(got)")
    case (nil, nil): break
    case (let exact, let got):
        require(false, "\(text): expected \(String(describing: exact)), got \(String(describing: got))")
    }
}
