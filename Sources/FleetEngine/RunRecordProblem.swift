/// Why records could not be merged.
public struct RunRecordProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
