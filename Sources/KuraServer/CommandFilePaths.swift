import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The files `kura backup`, `kura export` and `kura import` are given must lie outside the data directory: written
/// there, a backup or export could replace a database a server is using (it is renamed into place); read from
/// there, an import would open a database file outside SQLite, which drops the process's SQLite locks on it
/// (docs/architecture.md, "Database files"). Paths are compared resolved (symbolic links, `..`).
enum CommandFilePaths {
    /// Throws when `file` (existing or not) is inside `dataDirectory`. `role` names the file in the message.
    static func refuseInsideDataDirectory(_ file: String, dataDirectory: String, role: String) throws {
        guard file != "-", let data = realPath(dataDirectory) else { return }
        let absolute =
            (file as NSString).isAbsolutePath
            ? file : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(file)
        // The file may not exist yet: resolve the directory it goes into.
        let resolved =
            realPath(absolute)
            ?? realPath((absolute as NSString).deletingLastPathComponent).map {
                ($0 as NSString).appendingPathComponent((absolute as NSString).lastPathComponent)
            }
        guard let resolved, resolved == data || resolved.hasPrefix(data == "/" ? "/" : data + "/") else { return }
        throw ConfigurationError(
            "the \(role) \(file) is inside the data directory \(dataDirectory); use a path outside it (the "
                + "data directory holds only the server's own files)")
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
