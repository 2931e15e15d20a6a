import BeekonDevice

/// How fast virtual time runs, from every surface (`--warp`, `clock.warp`, `PATCH
/// /api/v1/fleet`): a rate of the wall clock, or as fast as the machine goes.
public enum Warp: Sendable, Hashable {
    /// Virtual seconds per real second, in `FleetFile.warpRange`: 1 is real time, 60 an hour a
    /// minute.
    case rate(Double)
    /// Nothing follows the wall clock: each device runs on until it needs an answer it does not
    /// have yet. Needs modelled transfer timing (at an unbounded warp every real answer would be
    /// a timeout), so it implies it.
    case max

    /// The word that stands for `max` wherever a warp is written.
    public static let maxWord = "max"

    /// The rate (nil for `max`).
    public var rate: Double? {
        if case .rate(let value) = self { value } else { nil }
    }

    /// Reads `max` (any case) or a number in `FleetFile.warpRange`; a refusal's expectation names
    /// `max` too.
    public static func read(_ text: String) throws(NumberProblem) -> Warp {
        guard text.lowercased() != maxWord else { return .max }
        do throws(NumberProblem) {
            return .rate(try FleetFile.warpRange.read(text))
        } catch {
            var problem = error
            problem.expected += ", or \(maxWord)"
            throw problem
        }
    }
}
