/// Reverse geocoding on range queries: the nearest place to a point, found by reading geohash cells.
///
/// The world is the 32 one-character cells. A best-first search takes cells in order of their distance from the
/// point and stops when the next one is farther than the nearest place found: no place in it can be nearer.
/// A cell is read with one range query of at most `limit` places; when the answer is full, the cell's 32
/// children take its place in the search. The first round reads the point's cell and its neighbours at
/// `seedPrecision` (where most points find their answer); the coarser cells around them are then split rather
/// than read while the best distance is small against them, and read whole while it is not (a point at sea reads
/// a few large, mostly empty cells instead of many small ones). Cells in a round are read in parallel.
///
/// Distances to cells are exact great-circle distances to the nearest point of the cell, so the search is right
/// across the antimeridian (cells on both sides are near) and at the poles (every cell touching the pole's row is
/// near a point close to it).
public struct NearestPlaceSearch: Sendable {
    public let source: any PlaceSource
    /// Places per range query.
    public var limit = 50
    /// Precision of the first round's cells.
    public var seedPrecision = 4
    /// Most range queries sent at once.
    public var parallelQueries = 16

    public init(source: any PlaceSource) { self.source = source }

    /// What a search did, for `--json` and the bench.
    public struct Statistics: Sendable, Equatable {
        public var queries = 0
        public var rounds = 0
        public var placesRead = 0
        /// The range queries of each round, in order (sent in parallel within a round).
        public var roundSizes: [Int] = []
    }

    /// The nearest place and what it took; nil only when the source holds no place at all.
    public func nearest(to point: Coordinate) async throws -> (PlaceDistance?, Statistics) {
        var statistics = Statistics()
        var best: PlaceDistance? = nil
        // Cells read: true when the answer held every place of the cell.
        var read: [String: Bool] = [:]
        var queue = CellQueue()
        for hash in GeohashCell.alphabet {
            queue.push(GeohashCell(hash: String(hash))!, from: point)
        }
        let seed = GeohashCell(point, precision: seedPrecision)
        var batch = [seed] + seed.neighbours

        while true {
            if !batch.isEmpty {
                statistics.rounds += 1
                statistics.queries += batch.count
                statistics.roundSizes.append(batch.count)
                let answers = try await readCells(batch)
                for (cell, places) in answers {
                    statistics.placesRead += places.count
                    for place in places {
                        let candidate = PlaceDistance(
                            place: place, distance: GreatCircle.distance(point, place.coordinate))
                        if best.map({ (candidate.distance, candidate.place.id) < ($0.distance, $0.place.id) }) ?? true {
                            best = candidate
                        }
                    }
                    let complete = places.count < limit || cell.precision == GeohashCell.maximumPrecision
                    read[cell.hash] = complete
                    if !complete {
                        // Children sorting before the last place read were read whole; the rest are pushed.
                        let last = places.last!.geohash
                        for child in cell.children where child.hash >= String(last.prefix(child.precision)) {
                            queue.push(child, from: point)
                        }
                    }
                }
                batch = []
            }
            let bound = best?.distance ?? .infinity
            // A round reads cells up to twice the distance of its nearest one (and 100 km): farther ones wait,
            // since the nearer answers usually rule them out.
            var horizon = Double.infinity
            while batch.count < parallelQueries, let distance = queue.nearestDistance, distance < bound,
                distance <= horizon
            {
                let cell = queue.popNearest()
                if isCovered(cell, read) || read[cell.hash] == false { continue }  // Known, or children queued.
                let size = GeohashCell.height(cell.precision) * 111.2
                if hasReadDescendant(cell, read) && bound < size / 4 {
                    for child in cell.children { queue.push(child, from: point) }
                } else {
                    if batch.isEmpty { horizon = 2 * distance + 100 }
                    batch.append(cell)
                }
            }
            if batch.isEmpty { return (best, statistics) }
        }
    }

    private func readCells(_ cells: [GeohashCell]) async throws -> [(GeohashCell, [Place])] {
        let source = source
        let limit = limit
        return try await withThrowingTaskGroup(of: (GeohashCell, [Place]).self) { group in
            for cell in cells {
                group.addTask {
                    let range = cell.range
                    return (cell, try await source.places(geohashFrom: range.lower, below: range.upper, limit: limit))
                }
            }
            var answers: [(GeohashCell, [Place])] = []
            for try await answer in group { answers.append(answer) }
            return answers.sorted { $0.0.hash < $1.0.hash }
        }
    }

    /// Whether the cell or one of its ancestors was read whole.
    private func isCovered(_ cell: GeohashCell, _ read: [String: Bool]) -> Bool {
        let hash = cell.hash
        for length in 1...hash.count where read[String(hash.prefix(length))] == true { return true }
        return false
    }

    private func hasReadDescendant(_ cell: GeohashCell, _ read: [String: Bool]) -> Bool {
        let hash = cell.hash
        return read.keys.contains { $0.count > hash.count && $0.hasPrefix(hash) }
    }
}

/// Cells waiting to be looked at, nearest first.
struct CellQueue {
    private var entries: [(cell: GeohashCell, distance: Double)] = []

    mutating func push(_ cell: GeohashCell, from point: Coordinate) {
        let distance = cell.distance(from: point)
        // Kept sorted, farthest first, so the nearest is popped from the end; queues hold a few hundred cells.
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].distance > distance { low = middle + 1 } else { high = middle }
        }
        entries.insert((cell, distance), at: low)
    }

    /// The distance of the nearest cell; nil when the queue is empty.
    var nearestDistance: Double? { entries.last?.distance }

    /// Removes and returns the nearest cell; the queue must not be empty.
    mutating func popNearest() -> GeohashCell { entries.removeLast().cell }
}
