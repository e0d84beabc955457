extension String {
    /// The last `count` UTF-8 bytes, or fewer so that the result starts on a Unicode scalar; the whole string when
    /// it is shorter. Found without walking characters: a cheap hash key for long random tokens, whose tails
    /// differ (a lookup by it must still compare the whole string).
    public func utf8Tail(_ count: Int) -> Substring {
        let utf8 = self.utf8
        var start = utf8.index(utf8.endIndex, offsetBy: -count, limitedBy: utf8.startIndex) ?? utf8.startIndex
        while start < utf8.endIndex, utf8[start] & 0xC0 == 0x80 { start = utf8.index(after: start) }
        return self[start...]
    }
}
