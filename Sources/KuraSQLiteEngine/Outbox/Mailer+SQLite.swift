import KuraCore
import KuraMail
import KuraModel

extension Mailer {
    /// Opens (creating if needed) the SQLite engine's outbox in `directory` (`mail.db`) and starts the mailer on it
    /// (see `Mailer.init(outbox:configuration:logger:startWorker:)`).
    public convenience init(
        directory: String, configuration: MailConfiguration = .held, logger: Logger, startWorker: Bool = true
    ) throws {
        try self.init(
            outbox: SQLiteOutboxStore(directory: directory), configuration: configuration, logger: logger,
            startWorker: startWorker)
    }
}
