import Foundation
import KuraClient

/// One quiz as stored at `quizzes/{id}` (apps/quiz/README.md): a title, ten ranked entries with values, a unit, a
/// memo naming the source, optional English texts, and the play count.
public struct Quiz: Sendable, Equatable {
    /// One ranked entry.
    public struct Entry: Sendable, Equatable {
        public var rank: Int
        public var name: String
        public var nameEn: String?
        public var value: Double

        public init(rank: Int, name: String, nameEn: String? = nil, value: Double) {
            self.rank = rank
            self.name = name
            self.nameEn = nameEn
            self.value = value
        }
    }

    /// The document ID: a decimal number, the seed's `id`.
    public var id: String
    public var title: String
    public var titleEn: String?
    public var unit: String
    public var unitEn: String?
    public var memo: String
    public var memoEn: String?
    /// Ranked 1…10, in rank order.
    public var entries: [Entry]
    public var plays: Int

    public init(
        id: String, title: String, titleEn: String? = nil, unit: String, unitEn: String? = nil, memo: String,
        memoEn: String? = nil, entries: [Entry], plays: Int = 0
    ) {
        self.id = id
        self.title = title
        self.titleEn = titleEn
        self.unit = unit
        self.unitEn = unitEn
        self.memo = memo
        self.memoEn = memoEn
        self.entries = entries.sorted { $0.rank < $1.rank }
        self.plays = plays
    }

    /// The quiz in a document's fields; `nil` when they are not a quiz's shape.
    public init?(id: String, fields: DocumentData) {
        guard let title = fields["title"]?.stringValue, let list = fields["entries"]?.arrayValue else { return nil }
        var entries: [Entry] = []
        for item in list {
            guard let map = item.mapValue, let rank = map["rank"]?.intValue, let name = map["name"]?.stringValue,
                let value = map["value"]?.doubleValue
            else { return nil }
            entries.append(Entry(rank: rank, name: name, nameEn: map["nameEn"]?.stringValue, value: value))
        }
        self.init(
            id: id, title: title, titleEn: fields["titleEn"]?.stringValue, unit: fields["unit"]?.stringValue ?? "",
            unitEn: fields["unitEn"]?.stringValue, memo: fields["memo"]?.stringValue ?? "",
            memoEn: fields["memoEn"]?.stringValue, entries: entries, plays: fields["plays"]?.intValue ?? 0)
    }

    /// The document's fields (`plays` included).
    public var fields: DocumentData {
        var data: DocumentData = [
            "title": .string(title), "unit": .string(unit), "memo": .string(memo), "plays": .integer(Int64(plays)),
            "entries": .array(entries.map(Self.entryValue)),
        ]
        if let titleEn { data["titleEn"] = .string(titleEn) }
        if let unitEn { data["unitEn"] = .string(unitEn) }
        if let memoEn { data["memoEn"] = .string(memoEn) }
        return data
    }

    /// The entry at `rank`, if any.
    public func entry(rank: Int) -> Entry? { entries.first { $0.rank == rank } }

    /// A value with the quiz's unit: `"83,424 km²"`.
    public func valueText(_ value: Double) -> String {
        QuizRules.formatNumber(value) + (unit.isEmpty ? "" : " " + unit)
    }

    /// The seed app's row: `id, title, 1st…10th, data1…10, memo`, all strings, as its PHP server answered.
    public var seedRow: [String: String] {
        var row = ["id": id, "title": title, "memo": memo]
        for entry in entries where (1...10).contains(entry.rank) {
            row[Self.ordinals[entry.rank - 1]] = entry.name
            row["data\(entry.rank)"] = valueText(entry.value)
        }
        return row
    }

    /// The seed's column names for ranks 1…10.
    public static let ordinals = ["1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th", "10th"]

    /// Whether the quiz has the shape the rules accept (apps/quiz/quiz.rules): ten entries ranked 1…10, names and
    /// titles within their limits. Returns the problems, empty when there are none.
    public var problems: [String] {
        var found: [String] = []
        let trimmedTitle = title.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmedTitle.isEmpty { found.append("the title is empty") }
        if title.count > 100 { found.append("the title is longer than 100 characters") }
        if memo.count > 500 { found.append("the memo is longer than 500 characters") }
        if unit.count > 20 { found.append("the unit is longer than 20 characters") }
        if entries.map(\.rank) != Array(1...10) { found.append("the entries are not ranked 1 to 10") }
        if entries.contains(where: {
            $0.name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || $0.name.count > 60
        }) {
            found.append("an entry's name is empty or longer than 60 characters")
        }
        if entries.contains(where: { !$0.value.isFinite }) { found.append("an entry's value is not a number") }
        return found
    }

    private static func entryValue(_ entry: Entry) -> KuraValue {
        var map: DocumentData = [
            "rank": .integer(Int64(entry.rank)), "name": .string(entry.name), "value": numberValue(entry.value),
        ]
        if let nameEn = entry.nameEn { map["nameEn"] = .string(nameEn) }
        return .map(map)
    }

    /// Integral values stay integers (as the import file writes them), others doubles.
    static func numberValue(_ value: Double) -> KuraValue {
        if value == value.rounded(), abs(value) < 1e15 { return .integer(Int64(value)) }
        return .double(value)
    }
}
