/// A write transaction in which one job's work can be undone alone: a SAVEPOINT around it. Both engines' write
/// transactions have one; a writer runs a job that is not self-contained in it (`inSavepoint`).
package protocol JobSavepoint: AnyObject {
    /// Opens the job's savepoint.
    func savepoint() throws
    /// Keeps the job's work and closes its savepoint.
    func release() throws
    /// Undoes the job's work and closes its savepoint (never throws: a broken connection is found by the next
    /// statement).
    func rollbackToSavepoint()
}

extension JobSavepoint {
    /// Runs `work` in a savepoint of its own: kept if it returns, undone (then rethrown) if it, or the savepoint,
    /// throws.
    package func inSavepoint(_ work: () throws -> Void) throws {
        do {
            try savepoint()
            try work()
            try release()
        } catch {
            rollbackToSavepoint()
            throw error
        }
    }
}
