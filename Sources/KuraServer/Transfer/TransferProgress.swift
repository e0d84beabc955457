import Foundation
import KuraCore

#if canImport(Glibc)
    import Glibc
#endif

/// Progress of an export or import: on a terminal, one line on stderr rewritten in place (at most five times a
/// second); otherwise a log line every `logInterval` seconds. Both say records done, the rate and, when the total
/// is known, the share done and the time left. The start and the end always go to the log.
final class TransferProgress {
    /// Seconds between two progress lines in the log when stderr is not a terminal.
    static let logInterval = 5.0

    private let label: String
    private let unit: String
    private let total: Int64?
    private let logger: Logger
    private let interactive: Bool
    private let started = MonotonicClock.seconds()
    private var lastShown: Double
    private var shownOnTerminal = false
    private(set) var done: Int64 = 0

    /// `interactive`: rewrite a terminal line (default: when stderr is a terminal). `unit` names what is counted.
    init(
        _ label: String, total: Int64?, logger: Logger, interactive: Bool = isatty(2) == 1, unit: String = "records"
    ) {
        self.label = label
        self.unit = unit
        self.total = total
        self.logger = logger
        self.interactive = interactive
        lastShown = started
    }

    /// Counts `records` more as done.
    func advance(by records: Int64 = 1) {
        done += records
        let now = MonotonicClock.seconds()
        guard now - lastShown >= (interactive ? 0.2 : Self.logInterval) else { return }
        lastShown = now
        show(now)
    }

    /// Clears the terminal line and logs the outcome.
    func finish(_ summary: String) {
        if shownOnTerminal { logger.writeRaw(Array("\r\u{1B}[K".utf8)) }
        let seconds = MonotonicClock.seconds() - started
        logger.info("\(label): \(summary) in \(String(format: "%.1f", seconds)) s (\(rate(seconds)) \(unit)/s)")
    }

    private func show(_ now: Double) {
        let status = Self.status(done: done, total: total, seconds: now - started, unit: unit)
        if interactive {
            shownOnTerminal = true
            logger.writeRaw(Array("\r\u{1B}[K\(label): \(status)".utf8))
        } else {
            logger.info("\(label): \(status)")
        }
    }

    private func rate(_ seconds: Double) -> Int64 { seconds > 0 ? Int64(Double(done) / seconds) : done }

    /// `1200/5000 records (24%), 800 records/s, ETA 5 s`.
    static func status(done: Int64, total: Int64?, seconds: Double, unit: String = "records") -> String {
        let perSecond = seconds > 0 ? Double(done) / seconds : 0
        var text = "\(done)"
        if let total, total > 0 {
            text += "/\(total) \(unit) (\(min(100, done * 100 / total))%)"
        } else {
            text += " \(unit)"
        }
        text += ", \(Int64(perSecond)) \(unit)/s"
        if let total, perSecond > 0, total > done {
            text += ", ETA \(Int64((Double(total - done) / perSecond).rounded(.up))) s"
        }
        return text
    }
}
