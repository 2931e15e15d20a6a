/// Why a threshold cannot be read: the expression, what is wrong, and what was expected.
public struct ThresholdProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var expression: String
    public var problem: String
    public var expected: String

    public var description: String { "threshold `\(expression)` \(problem); expected \(expected)" }
}
