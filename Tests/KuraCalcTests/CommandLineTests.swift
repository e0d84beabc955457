import Foundation
import KuraTestSupport
import Testing

/// `kura-calc`, run as a user runs it (built next to this test bundle by `swift build --build-tests`).
@Suite struct CalcCommandLineTests {
    static func kuraCalc(_ arguments: [String], input: String? = nil) throws -> (
        status: Int32, output: String, error: String
    ) {
        let run = try runToEndApart(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                .appendingPathComponent("kura-calc"),
            arguments, environment: ["LANG": "C"], inheritEnvironment: false, input: input ?? "")
        return (run.status, run.output, run.errors)
    }

    @Test func oneShot() throws {
        let run = try Self.kuraCalc(["2.3+5.3+3.3"])
        #expect(run.status == 0)
        #expect(run.output == "10.9\n")
        #expect(try Self.kuraCalc(["-5", "*", "(2", "+", "1)"]).output == "-15\n")
    }

    @Test func errorsAndNotices() throws {
        let failed = try Self.kuraCalc(["1/0"])
        #expect(failed.status == 1)
        #expect(failed.output.isEmpty)
        #expect(failed.error == "error: Division by zero.\n")
        let japanese = try Self.kuraCalc(["--lang", "ja", "1/0"])
        #expect(japanese.error == "error: 0で割ることはできません。\n")
        let noticed = try Self.kuraCalc(["000+002"])
        #expect(noticed.output == "2\n")
        #expect(noticed.error == "note: Leading zeros are dropped.\n")
    }

    @Test func linesFromAPipeCarryAns() throws {
        let run = try Self.kuraCalc([], input: "1/3*3\nAns+1\n\n2/0\nAns*2\n")
        #expect(run.output == "1\n2\n4\n")
        #expect(run.status == 1)
    }

    @Test func help() throws {
        let run = try Self.kuraCalc(["--help"])
        #expect(run.status == 0)
        #expect(run.output.contains("usage: kura-calc"))
        #expect(try Self.kuraCalc(["--lang", "fr"]).status == 2)
    }
}
