/// Every problem found in a fleet file (validation does not stop at the first).
public struct FleetFileProblems: Error, Sendable, Hashable, CustomStringConvertible {
    /// In file order.
    public var problems: [FleetFileProblem]

    /// The problems, one a line.
    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}
