import KuraCore
import KuraModel

extension AutoID {
    /// A new automatic ID (KuraModel's format) made now, its random part from libsodium.
    public static func automatic(now micros: Int64 = WallClock.nowMicros()) -> String {
        var generator = SecureRandom.Generator()
        return make(micros: micros, using: &generator)
    }
}
