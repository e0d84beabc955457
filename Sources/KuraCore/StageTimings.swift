import Synchronization

/// Durations of named stages, recorded from any thread and summed up as percentiles: how long a change takes from
/// its commit to its listeners' sockets, stage by stage (kept only at `logLevel = debug`; docs/design/scaling.md,
/// "Realtime across nodes: where the time goes").
public final class StageTimings: Sendable {
    private let state = Mutex(State())

    private struct State {
        /// Stage names in the order they were first recorded (the order of the summary).
        var names: [String] = []
        var samples: [String: [Int64]] = [:]
    }

    public init() {}

    /// Records one duration of `stage`, in microseconds.
    public func record(_ stage: String, micros: Int64) {
        state.withLock { state in
            if state.samples[stage] == nil { state.names.append(stage) }
            state.samples[stage, default: []].append(micros)
        }
    }

    /// `stage p50/p99/max ms (n)` for every stage recorded since the last call, then forgets them; `nil` when
    /// nothing was recorded.
    public func drain() -> String? {
        let (names, samples) = state.withLock { state -> ([String], [String: [Int64]]) in
            defer { state = State() }
            return (state.names, state.samples)
        }
        guard !names.isEmpty else { return nil }
        return names.map { name -> String in
            let sorted = (samples[name] ?? []).sorted()
            // Nearest rank, as bench/postgres.sh computes its percentiles.
            func rank(_ percent: Int) -> Int64 { sorted[max(0, (sorted.count * percent + 99) / 100 - 1)] }
            let (p50, p99, most) = (Self.ms(rank(50)), Self.ms(rank(99)), Self.ms(sorted[sorted.count - 1]))
            return "\(name) \(p50)/\(p99)/\(most) (\(sorted.count))"
        }.joined(separator: ", ")
    }

    private static func ms(_ micros: Int64) -> String {
        let tenths = (micros + 50) / 100
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}
