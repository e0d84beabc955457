import CKuraWebSDK
import KuraHTTP
import KuraHosting

/// Files compiled into the binary (CKuraWebSDK: the browser SDK, the console) by name, each prepared (and
/// compressed) once and served like hosted files, revalidated on every use (`no-cache`), since the same URL serves
/// the next Kura version's file.
enum EmbeddedFiles {
    /// The files of a table that ends with an entry whose name is NULL.
    static func load(_ table: UnsafePointer<kura_web_sdk_file>) -> [String: StaticFile] {
        var files: [String: StaticFile] = [:]
        var entry = table
        while let name = entry.pointee.name {
            let fileName = String(cString: name)
            let bytes = Array(UnsafeBufferPointer(start: entry.pointee.bytes, count: entry.pointee.size))
            files[fileName] = StaticFile(
                body: bytes, contentType: MediaType.forFile(named: fileName), cacheControl: "no-cache",
                modifiedSeconds: nil)
            entry += 1
        }
        return files
    }
}
