import CCurl
import Synchronization

/// Why one delivery attempt failed.
public struct SMTPError: Error, Sendable, CustomStringConvertible {
    /// libcurl's result code (`CURLE_*`).
    public var curlCode: Int
    /// The last SMTP reply code, 0 if none was received.
    public var replyCode: Int
    /// libcurl's message.
    public var message: String

    /// A 5xx reply to the envelope or the data (not to AUTH, which is a configuration problem that an operator
    /// fixes): retrying sends the same mail to the same answer, so the mail fails at once.
    public var isPermanent: Bool { (500..<600).contains(replyCode) && ![530, 534, 535, 538].contains(replyCode) }

    public var description: String {
        replyCode > 0 ? "\(message) (curl \(curlCode), SMTP \(replyCode))" : "\(message) (curl \(curlCode))"
    }
}

/// Sends one message to an SMTP relay with libcurl; one easy handle per delivery, so calls on different threads
/// are independent.
struct SMTPTransport: Sendable {
    let configuration: SMTPConfiguration

    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// Delivers `data` (an RFC 5322 message with CRLF lines) from `sender` to `recipients`. Returns once the relay
    /// accepted the data (250 after `DATA`); throws `SMTPError` otherwise. `cancel` aborts a running transfer.
    func send(sender: String, recipients: [String], data: [UInt8], cancel: CancellationFlag) throws(SMTPError) {
        guard Self.globalInit, let curl = curl_easy_init() else {
            throw SMTPError(curlCode: Int(CURLE_FAILED_INIT.rawValue), replyCode: 0, message: "libcurl failed to start")
        }
        defer { curl_easy_cleanup(curl) }
        var recipientList: UnsafeMutablePointer<curl_slist>? = nil
        for recipient in recipients { recipientList = curl_slist_append(recipientList, recipient) }
        defer { curl_slist_free_all(recipientList) }

        let body = UploadBody(bytes: data, cancel: cancel)
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = withExtendedLifetime(body) {
            errorBuffer.withUnsafeMutableBufferPointer { errorPointer in
                let context = Unmanaged.passUnretained(body).toOpaque()
                kura_curl_setopt_string(curl, CURLOPT_MAIL_FROM, "<\(sender)>")
                kura_curl_setopt_pointer(curl, CURLOPT_MAIL_RCPT, UnsafeMutableRawPointer(recipientList))
                kura_curl_setopt_long(curl, CURLOPT_UPLOAD, 1)
                kura_curl_setopt_read_function(curl) { buffer, size, count, context in
                    let body = Unmanaged<UploadBody>.fromOpaque(context!).takeUnretainedValue()
                    return body.read(into: buffer!, capacity: size * count)
                }
                kura_curl_setopt_pointer(curl, CURLOPT_READDATA, context)
                // The progress callback lets shutdown abort a slow relay instead of waiting out the timeout.
                kura_curl_setopt_long(curl, CURLOPT_NOPROGRESS, 0)
                kura_curl_setopt_xferinfo_function(curl) { context, _, _, _, _ in
                    Unmanaged<UploadBody>.fromOpaque(context!).takeUnretainedValue().cancelled ? 1 : 0
                }
                kura_curl_setopt_pointer(curl, CURLOPT_XFERINFODATA, context)
                kura_curl_setopt_pointer(curl, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorPointer.baseAddress!))
                setConnectionOptions(curl)
                return curl_easy_perform(curl)
            }
        }
        guard code != CURLE_OK else { return }
        throw Self.failure(code, on: curl, errorBuffer)
    }

    /// What a failed `curl_easy_perform` on `curl` says: the relay's last reply code, and libcurl's error buffer
    /// (or, when that is empty, the text of `code`).
    private static func failure(_ code: CURLcode, on curl: UnsafeMutableRawPointer, _ errorBuffer: [CChar])
        -> SMTPError
    {
        var reply = 0
        kura_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &reply)
        let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        return SMTPError(curlCode: Int(code.rawValue), replyCode: reply, message: message)
    }

    /// The options of every connection to the relay: its URL, timeouts, TLS and credentials.
    func setConnectionOptions(_ curl: UnsafeMutableRawPointer) {
        kura_curl_setopt_string(curl, CURLOPT_URL, configuration.url)
        // Worker threads must not get SIGALRM from libcurl's resolver timeouts.
        kura_curl_setopt_long(curl, CURLOPT_NOSIGNAL, 1)
        kura_curl_setopt_long(curl, CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout.milliseconds))
        kura_curl_setopt_long(curl, CURLOPT_TIMEOUT_MS, Int(configuration.timeout.milliseconds))
        // The wait for the relay's answer to the message itself is not under CURLOPT_TIMEOUT: without this a
        // relay that takes the message and never answers held the deliverer (and its lease) for minutes.
        let seconds = (configuration.timeout.milliseconds + 999) / 1000
        kura_curl_setopt_long(curl, CURLOPT_SERVER_RESPONSE_TIMEOUT, Int(max(1, seconds)))
        let useSSL: curl_usessl =
            switch configuration.startTLS {
            case .required: CURLUSESSL_ALL
            case .optional: CURLUSESSL_TRY
            case .none: CURLUSESSL_NONE
            }
        kura_curl_setopt_long(curl, CURLOPT_USE_SSL, Int(useSSL.rawValue))
        if configuration.allowInsecureTLS {
            kura_curl_setopt_long(curl, CURLOPT_SSL_VERIFYPEER, 0)
            kura_curl_setopt_long(curl, CURLOPT_SSL_VERIFYHOST, 0)
        }
        if let username = configuration.username {
            kura_curl_setopt_string(curl, CURLOPT_USERNAME, username)
            kura_curl_setopt_string(curl, CURLOPT_PASSWORD, configuration.password ?? "")
        }
    }

    /// Connects to the relay as a delivery would (EHLO, STARTTLS and AUTH as configured), sends `NOOP` and
    /// `QUIT`; throws `SMTPError` when any of it fails. For `kura doctor`.
    func probe() throws(SMTPError) {
        guard Self.globalInit, let curl = curl_easy_init() else {
            throw SMTPError(curlCode: Int(CURLE_FAILED_INIT.rawValue), replyCode: 0, message: "libcurl failed to start")
        }
        defer { curl_easy_cleanup(curl) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code = errorBuffer.withUnsafeMutableBufferPointer { errorPointer in
            kura_curl_setopt_pointer(curl, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorPointer.baseAddress!))
            setConnectionOptions(curl)
            // With no recipients and no body, a custom request is sent as a plain command (libcurl's SMTP: NOOP).
            kura_curl_setopt_string(curl, CURLOPT_CUSTOMREQUEST, "NOOP")
            kura_curl_setopt_long(curl, CURLOPT_NOBODY, 1)
            return curl_easy_perform(curl)
        }
        guard code != CURLE_OK else { return }
        throw Self.failure(code, on: curl, errorBuffer)
    }
}

extension SMTPConfiguration {
    /// Checks that the relay answers: connect, EHLO (with STARTTLS and AUTH as configured), NOOP, QUIT, each under
    /// `connectTimeout` and `timeout`. Throws `SMTPError` saying what failed.
    public func probe() throws(SMTPError) {
        try SMTPTransport(configuration: self).probe()
    }
}

/// The message bytes libcurl reads through `CURLOPT_READFUNCTION`; passed as an unretained context pointer that
/// stays valid for the whole `curl_easy_perform` call.
private final class UploadBody {
    let bytes: [UInt8]
    var offset = 0
    let cancel: CancellationFlag

    init(bytes: [UInt8], cancel: CancellationFlag) {
        self.bytes = bytes
        self.cancel = cancel
    }

    var cancelled: Bool { cancel.isSet }

    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let count = min(capacity, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBufferPointer { source in
            UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return count
    }
}

/// A flag set once, from any thread, to abort work in progress.
final class CancellationFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
