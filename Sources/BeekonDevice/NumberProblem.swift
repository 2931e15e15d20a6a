/// Why a number was refused: the value as written, what was wrong, and what the range accepts.
/// Each surface says where it came from (`--warp`, `fleet.yaml:4:9`, the JSON field `warp`).
public struct NumberProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong with the value.
    public enum Reason: String, Sendable, Hashable {
        /// Not a number at all (`x`, `nan`, empty).
        case notANumber
        /// Infinite (or a number too large to be finite).
        case notFinite
        /// A fraction, or an exponent, where a whole number is needed.
        case notWhole
        /// A number outside the range.
        case outOfRange
    }

    /// The value as the input wrote it.
    public var value: String
    /// What was wrong with it.
    public var reason: Reason
    /// What the range accepts (`a number from 0.01 to 10000`).
    public var expected: String

    /// A problem with `value`.
    public init(value: String, reason: Reason, expected: String) {
        self.value = value
        self.reason = reason
        self.expected = expected
    }

    /// `"1e300" is out of range; expected a number from 0.01 to 10000`.
    public var description: String {
        "\"\(value)\" \(problem); expected \(expected)"
    }

    /// The problem alone: `is out of range`, `is not a number`.
    public var problem: String {
        switch reason {
        case .notANumber: "is not a number"
        case .notFinite: "is not finite"
        case .notWhole: "is not a whole number"
        case .outOfRange: "is out of range"
        }
    }
}
