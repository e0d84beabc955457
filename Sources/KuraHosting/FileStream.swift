import KuraHTTP
import Synchronization

/// Sends `count` bytes of an open file from `offset` through a length-framed stream, one chunk at a time: each
/// chunk is read on the worker pool (never on the loop), and the next one only once the connection has at most a
/// chunk queued. A slow client so holds about two chunks of memory, whatever the file's size.
final class FileStream: Sendable {
    /// Bytes read and written at a time.
    static let chunkBytes = 64 * 1024

    private let file: OpenFile
    private let stream: ResponseStream
    private let workers: WorkerPool
    private let counters: StreamCounters
    private let end: Int64
    /// Where the next chunk starts. Touched on the stream's loop only; the lock makes that checkable.
    private let position: Mutex<Int64>

    init(
        file: OpenFile, offset: Int64, count: Int64, stream: ResponseStream, workers: WorkerPool,
        counters: StreamCounters
    ) {
        self.file = file
        self.stream = stream
        self.workers = workers
        self.counters = counters
        end = offset + count
        position = Mutex(offset)
        counters.opened()
    }

    deinit { counters.closed() }

    /// Reads and sends the next chunk; finishes the stream after the last. Loop thread.
    func next() {
        guard !stream.isClosed else { return }
        let offset = position.withLock { $0 }
        let count = Int(min(Int64(Self.chunkBytes), end - offset))
        guard count > 0 else { return stream.finish() }
        let file = self.file
        do {
            try workers.submit(on: stream.eventLoop, { file.read(at: offset, count: count) }) { [self] result in
                // A file that shrank (or failed) under the stream cannot fill the announced length: the connection
                // closes, so the client sees a short answer instead of a corrupt one.
                guard case .success(let bytes?) = result else { return stream.finish(closingConnection: true) }
                position.withLock { $0 = offset + Int64(count) }
                counters.read(bytes.count)
                stream.write(bytes)
                counters.queued(stream.isClosed ? 0 : stream.queuedBytes)
                stream.whenQueued(atMost: Self.chunkBytes) { [self] in next() }
            }
        } catch {
            stream.finish(closingConnection: true)  // the worker queue is full
        }
    }
}

/// What large-file streams cost, for tests and diagnostics.
public final class StreamCounters: Sendable {
    private let state = Mutex<(read: Int, peakQueued: Int, open: Int)>((0, 0, 0))

    /// Bytes of large files read from disk so far.
    public var bytesRead: Int { state.withLock { $0.read } }
    /// The most bytes any one stream had waiting on its connection, measured right after each chunk was handed
    /// over: what a slow reader holds in memory (besides the chunk being read). At most about two chunks.
    public var peakQueuedBytes: Int { state.withLock { $0.peakQueued } }

    /// Streams under way (each holds its file open).
    public var openStreams: Int { state.withLock { $0.open } }

    func opened() { state.withLock { $0.open += 1 } }
    func closed() { state.withLock { $0.open -= 1 } }
    func read(_ bytes: Int) { state.withLock { $0.read += bytes } }
    func queued(_ bytes: Int) { state.withLock { $0.peakQueued = max($0.peakQueued, bytes) } }
}
