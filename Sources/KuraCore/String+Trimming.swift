extension String {
    /// `self` without leading and trailing spaces and tabs (the only blanks HTTP, MIME and config values use).
    public func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}
