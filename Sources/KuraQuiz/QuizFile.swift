import Foundation

/// The import file apps/quiz/data/quizzes.json: `{"quizzes": [{id, title, titleEn?, unit, unitEn?, memo, memoEn?,
/// entries: [[name, nameEn, value], …ten, ranked 1…10 in order]}]}`, compact for people to edit.
public enum QuizFile {
    /// The quizzes in the file's bytes; throws `QuizFile.Problem` naming the quiz that is wrong.
    public static func decode(_ data: Data) throws -> [Quiz] {
        let file = try JSONDecoder().decode(FileShape.self, from: data)
        return try file.quizzes.map { item in
            let entries = try item.entries.enumerated().map { index, row in
                guard row.count == 3, case .text(let name) = row[0], case .number(let value) = row[2] else {
                    throw Problem(description: "quiz \(item.id): entry \(index + 1) is not [name, nameEn, value]")
                }
                var nameEn: String?
                if case .text(let english) = row[1] { nameEn = english }
                return Quiz.Entry(rank: index + 1, name: name, nameEn: nameEn, value: value)
            }
            let quiz = Quiz(
                id: item.id, title: item.title, titleEn: item.titleEn, unit: item.unit, unitEn: item.unitEn,
                memo: item.memo, memoEn: item.memoEn, entries: entries)
            if let problem = quiz.problems.first { throw Problem(description: "quiz \(item.id): \(problem)") }
            return quiz
        }
    }

    /// A quiz in the file that cannot be imported.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    private struct FileShape: Decodable {
        var quizzes: [Item]
    }

    private struct Item: Decodable {
        var id: String
        var title: String
        var titleEn: String?
        var unit: String
        var unitEn: String?
        var memo: String
        var memoEn: String?
        var entries: [[Cell]]
    }

    private enum Cell: Decodable {
        case text(String)
        case number(Double)
        case none

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else if let text = try? container.decode(String.self) {
                self = .text(text)
            } else {
                self = .none
            }
        }
    }
}
