import KuraModel

/// A document as a write transaction read it, with the bytes it is stored as: the change log keeps those bytes as
/// the document's state before the write, so they are not encoded again.
package struct StoredDocument {
    /// The decoded document.
    package var document: Document
    /// Its stored encoding (`DocumentLimits.validate`'s output when it was written).
    package var data: [UInt8]

    /// A document read with its stored bytes.
    package init(document: Document, data: [UInt8]) {
        self.document = document
        self.data = data
    }
}
