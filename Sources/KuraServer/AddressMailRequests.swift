import KuraAuth
import KuraCore
import KuraHTTP
import KuraModel
import Synchronization

/// The account mails anyone may ask for by address alone: a password reset, and (for an account that must verify
/// its address before signing in) another verification mail. The answer is the same for every address, so it must
/// also cost the same: the route checks the input and the rate limits, hands the request to the worker pool
/// through `submit` and answers; the account lookup, the action code and the mail happen there, after the answer,
/// for known and unknown addresses alike.
public final class AddressMailRequests: Sendable {
    /// What is asked for.
    enum Kind: String, Sendable {
        case passwordReset = "password reset"
        case verification = "email verification"
    }

    private let auth: AuthService
    private let mailer: AccountMailer
    private let logger: Logger
    private let submittedCount = Atomic<Int>(0)
    private let finishedCount = Atomic<Int>(0)
    /// While held (tests), submitted jobs wait here instead of going to the worker pool.
    private let held = Mutex<[@Sendable () -> Void]?>(nil)

    init(auth: AuthService, mailer: AccountMailer, logger: Logger) {
        self.auth = auth
        self.mailer = mailer
        self.logger = logger
    }

    /// Requests handed off so far: every accepted request, whatever the address, counts once.
    public var submitted: Int { submittedCount.load(ordering: .acquiring) }

    /// Requests whose lookup (and, for a known address, code and mail) is done.
    public var finished: Int { finishedCount.load(ordering: .acquiring) }

    /// Keeps submitted requests from running until `release()` (for tests that look between the answer and the
    /// work).
    public func hold() { held.withLock { if $0 == nil { $0 = [] } } }

    /// Runs the requests kept by `hold()` and stops holding.
    public func release() {
        for start in held.withLock({ jobs -> [@Sendable () -> Void] in
            defer { jobs = nil }
            return jobs ?? []
        }) {
            start()
        }
    }

    /// Hands the request for `email` (already validated) to the worker pool. Throws 503 when its queue is full.
    func submit(
        _ kind: Kind, email: String, continueURL: String? = nil, request: Request, environment: RequestEnvironment
    ) throws {
        let work: @Sendable () -> Void = { [self] in
            do {
                try run(kind, email: email, continueURL: continueURL, request: request)
            } catch {
                logger.error("\(kind.rawValue) mail for a requested address failed: \(error)")
            }
            finishedCount.add(1, ordering: .releasing)
        }
        let workers = environment.workers
        let loop = environment.eventLoop
        let start: @Sendable () -> Void = {
            do { try workers.submit(on: loop, work, completion: { _ in }) } catch { work() }
        }
        submittedCount.add(1, ordering: .releasing)
        let wasHeld = held.withLock { jobs -> Bool in
            guard jobs != nil else { return false }
            jobs!.append(start)
            return true
        }
        if !wasHeld { try workers.submit(on: loop, work, completion: { _ in }) }
    }

    private func run(_ kind: Kind, email: String, continueURL: String?, request: Request) throws {
        switch kind {
        case .passwordReset:
            if let reset = try auth.passwordResetMail(email: email) {
                try mailer.passwordReset(
                    to: reset.email, code: reset.code, request: request, continueURL: continueURL)
            }
        case .verification:
            if let verification = try auth.verificationMail(email: email) {
                try mailer.verification(
                    to: verification.email, code: verification.code, request: request, continueURL: continueURL)
            }
        }
    }
}
