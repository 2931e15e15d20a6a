import Foundation

extension RandomNumberGenerator {
    /// A standard normal draw (Box–Muller: two uniforms, the first never 0), for every seeded
    /// distribution that needs one (a provider's position noise, a link's latency).
    public mutating func standardNormal() -> Double {
        let u1 = Double.random(in: Double.leastNonzeroMagnitude..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
