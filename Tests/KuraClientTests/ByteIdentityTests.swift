import Foundation
import Testing

@testable import KuraClient

/// The SDK names documents as the server does, by UTF-8 bytes (docs/api.md, "Identity"): café (NFC) and café
/// (NFD) are two documents in references, the local cache, listeners and transactions.
@Suite struct ByteIdentityTests {
    static let cafeNFC = "caf\u{E9}"
    static let cafeNFD = "cafe\u{301}"

    @Test func referencesOfTheTwoSpellingsDiffer() async throws {
        try await withServer { server in
            let kura = makeClient(server)
            let nfc = kura.document("menus/\(Self.cafeNFC)")
            let nfd = kura.document("menus/\(Self.cafeNFD)")
            #expect(nfc != nfd)
            #expect(Set([nfc, nfd]).count == 2)
            #expect(kura.collection("c/\(Self.cafeNFC)/x") != kura.collection("c/\(Self.cafeNFD)/x"))
        }
    }

    @Test func offlineCacheKeepsBothDocumentsAndListenersTheirOwn() async throws {
        try await withServer { server in
            let cache = temporaryFile("cache.sqlite")
            defer { removeDatabase(cache) }
            let (kura, uid) = try await signedInClient(
                server, settings: .init(persistence: .file(cache), session: .memory))
            let menus = kura.collection("users/\(uid)/menus")
            let nfc = menus.document(Self.cafeNFC)
            let nfd = menus.document(Self.cafeNFD)
            try await nfc.setData(["form": "nfc"])
            let listener = Collector(nfc.snapshots())
            defer { listener.cancel() }
            try await listener.wait { $0["form"] == "nfc" }

            await server.stopOffPool()
            try await nfd.setData(["form": "nfd"])
            try await nfc.updateData(["seen": true])
            let latest = try await listener.wait { $0["seen"] == true }
            #expect(latest["form"] == "nfc")
            #expect(try await nfc.getDocument()["form"] == "nfc")
            #expect(try await nfd.getDocument()["form"] == "nfd")
            let all = try await menus.getDocuments()
            #expect(all.documents.count == 2, "\(all.documents.map(\.documentID))")
            let events = try await listener.wait(forCount: 1)
            #expect(!events.contains { $0["form"] == "nfd" })
        }
    }

    @Test func transactionPinsEachDocumentItRead() async throws {
        try await withServer { server in
            let (kura, uid) = try await signedInClient(server)
            let nfc = kura.document("users/\(uid)/menus/\(Self.cafeNFC)")
            let nfd = kura.document("users/\(uid)/menus/\(Self.cafeNFD)")
            try await nfc.setData(["n": 1])
            // Reads NFC (version 1), writes NFD (never read, does not exist): only NFC's read pins anything.
            try await kura.runTransaction(maxAttempts: 2) { tx in
                _ = try await tx.getDocument(nfc)
                try tx.setData(["n": 2], forDocument: nfd)
            }
            #expect(try await nfd.getDocument()["n"] == 2)
            #expect(try await nfc.getDocument()["n"] == 1)
        }
    }
}
