import Glibc
import KuraCore
import KuraHTTP
import KuraTestSupport
import Testing

/// `HTTPServer.start()` says what went wrong: a libuv failure carries the call and libuv's error name, and the
/// configuration mistakes have cases of their own.
@Suite struct StartErrorTests {
    private func server(_ adjust: (inout HTTPServerConfiguration) -> Void) -> HTTPServer {
        HTTPServer(
            configuration: TestHTTPServer.configuration(adjust), responder: Router<BasicRequestContext>(),
            logger: Logger(level: .error))
    }

    @Test func anAddressThisMachineDoesNotHaveIsReportedAsThatByLibuv() throws {
        // 192.0.2.1 is TEST-NET-1 (RFC 5737): no interface here has it, so bind(2) answers EADDRNOTAVAIL.
        let error = #expect(throws: HTTPServerError.self) { try server { $0.host = "192.0.2.1" }.start() }
        #expect(error == .system(call: "uv_tcp_bind", code: -EADDRNOTAVAIL))  // libuv's codes are -errno on Linux
        #expect(error?.description.contains("EADDRNOTAVAIL") == true)
        #expect(error?.description.contains("uv_tcp_bind") == true)
    }

    @Test func aPortOutOfRangeIsNamed() throws {
        let error = #expect(throws: HTTPServerError.self) { try server { $0.port = 70000 }.start() }
        #expect(error == .portOutOfRange(70000))
    }

    @Test func startingTwiceIsRefusedAsSuch() throws {
        try withTestHTTPServer { test in
            let error = #expect(throws: HTTPServerError.self) { try test.server.start() }
            #expect(error == .alreadyStarted)
            #expect(test.stillServes())
        }
    }

    @Test func aPortAnotherServerHoldsIsInUse() throws {
        try withTestHTTPServer { first in
            let port = first.port
            let error = #expect(throws: HTTPServerError.self) { try server { $0.port = port }.start() }
            #expect(error == .portInUse(port))
        }
    }
}
