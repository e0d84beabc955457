import CKuraWebSDK
import KuraCore
import KuraHTTP
import KuraHosting
import KuraModel

/// `GET /sdk/{file}`: the browser SDK (`kura.js`, the modules it imports, `kura.d.ts`), compiled into the binary
/// from web/sdk/ and served like hosted files (ETag, gzip), revalidated on every use (`no-cache`), since the same
/// URL serves the next Kura version's SDK.
enum WebSDKRoutes {
    /// The embedded files by name, prepared (and compressed) once.
    static let files = EmbeddedFiles.load(kura_web_sdk_files()!)

    static func register(on router: Router<KuraContext>) {
        let files = Self.files
        router.get("/sdk/:file") { request, _ in
            let name = try request.parameter("file")
            guard let file = files[name] else { throw APIError.notFound("the browser SDK has no file \(name)") }
            return file.response(to: request)
        }
    }
}
