import KuraClient

/// Places in Kura's `places` collection, read with the SDK's queries (the only file of the searches that talks to
/// the network). A range is `orderBy(field)` with the cursors `startAt(lower)` and `endBefore(upper)`, as GeoFire
/// does it: Kura bounds its index walk at both cursors, while of two range filters on one field (`>=` and `<`)
/// it bounds the walk by one and checks the other on each entry, which reads to the end of the index.
public struct KuraPlaceSource: PlaceSource {
    public let kura: Kura

    public init(kura: Kura) { self.kura = kura }

    var collection: CollectionReference { kura.collection(Place.collection) }

    public func places(geohashFrom lower: String, below upper: String, limit: Int) async throws -> [Place] {
        try await range("geohash", lower, upper, limit)
    }

    public func places(nameKeyFrom lower: String, below upper: String, limit: Int) async throws -> [Place] {
        try await range("nameKey", lower, upper, limit)
    }

    private func range(_ field: String, _ lower: String, _ upper: String, _ limit: Int) async throws -> [Place] {
        let snapshot = try await collection.order(by: field).start(at: [.string(lower)])
            .end(before: [.string(upper)]).limit(to: limit).getDocuments()
        return snapshot.documents.compactMap { Place(id: $0.documentID, fields: $0.fields) }
    }
}

extension Place {
    /// The document's fields: `name`, `admin1`, `admin2`, `cc`, `lat`, `lon`, `geohash`, `nameKey`, `nearby`.
    public var fields: DocumentData {
        [
            "name": .string(name), "admin1": .string(admin1), "admin2": .string(admin2), "cc": .string(countryCode),
            "lat": .double(coordinate.latitude), "lon": .double(coordinate.longitude), "geohash": .string(geohash),
            "nameKey": .string(nameKey), "nearby": .integer(Int64(nearby)),
        ]
    }

    /// A place read back from its document; nil when a field is missing or of the wrong type.
    public init?(id: String, fields: DocumentData) {
        guard let name = fields["name"]?.stringValue, let countryCode = fields["cc"]?.stringValue,
            let latitude = fields["lat"]?.doubleValue, let longitude = fields["lon"]?.doubleValue,
            let geohash = fields["geohash"]?.stringValue
        else { return nil }
        self.init(
            id: id, name: name, admin1: fields["admin1"]?.stringValue ?? "",
            admin2: fields["admin2"]?.stringValue ?? "",
            countryCode: countryCode, coordinate: Coordinate(latitude: latitude, longitude: longitude),
            nearby: fields["nearby"]?.intValue ?? 0)
        self.geohash = geohash
        self.nameKey = fields["nameKey"]?.stringValue ?? self.nameKey
    }
}
