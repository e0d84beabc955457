/// Which queued jobs the writer commits together next: the fairness rule between writes and background jobs
/// (index build windows), as a pure function so it is tested without threads.
///
/// - A background job runs in a transaction of its own, never together with writes, so a write's batch is never
///   lengthened by a build window it did not queue behind.
/// - A background job goes after the writes queued before it.
/// - After a background job, the writes waiting go next, even those queued behind the next background job.
///
/// So a write waits for at most the batch in progress and one background job, and a background job waits for at
/// most one batch of writes: neither starves the other.
enum SQLiteWriterQueue {
    /// Indices into `queue` (each job's size in writes and whether it is a background job) of the next batch, in
    /// queue order: at most `maxWrites` writes unless the first job alone is larger. `afterBackground`: the last
    /// batch was a background job. Empty only when `queue` is.
    static func nextBatch(_ queue: [(size: Int, background: Bool)], maxWrites: Int, afterBackground: Bool) -> [Int] {
        guard let first = queue.first else { return [] }
        let writesWaiting = queue.contains { !$0.background }
        if first.background && !(afterBackground && writesWaiting) { return [0] }
        var taken: [Int] = []
        var size = 0
        for (index, job) in queue.enumerated() {
            if job.background {
                // Before any background job: stop there. After one: skip it, it keeps its place.
                if afterBackground { continue } else { break }
            }
            if !taken.isEmpty && size + job.size > maxWrites { break }
            taken.append(index)
            size += job.size
        }
        return taken
    }
}
