import BeekonDevice
import Foundation

/// Waits of a memoryless process (a Poisson clock's gaps, an on/off link's stretches).
enum Exponential {
    /// An exponential draw of mean `mean` virtual ms from `rng`, at least 1 ms.
    static func millis(mean: Double, using rng: inout SplitMix64) -> Int64 {
        let u = Double.random(in: 0..<1, using: &rng)
        return max(1, Int64((-log1p(-u) * mean).rounded()))
    }
}
