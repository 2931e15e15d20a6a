import FleetRoutes

/// One thing wrong in a fleet file, where it is, and what was expected there.
public struct FleetFileProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The fleet file's path as given.
    public var file: String
    /// 1-based line, 0 when unknown.
    public var line: Int
    /// 1-based column, 0 when unknown.
    public var column: Int
    /// What is wrong.
    public var problem: String
    /// What would have been right; empty when the problem says it already.
    public var expected: String
    /// For an unknown key, its path (`config.sync.foo`); nil for other problems.
    public var unknownField: String?
    /// For an unknown key, the known one it is nearest to (`spread` for `spred`), if any.
    public var suggestion: String?
    /// For a number refused by its range or a missing action parameter, the field as the
    /// reader names it (`count`, `params.ms`); nil for other problems.
    public var field: String?

    /// A problem at a position.
    public init(file: String, line: Int, column: Int, problem: String, expected: String) {
        self.file = file
        self.line = line
        self.column = column
        self.problem = problem
        self.expected = expected
    }

    /// `FILE:LINE:COLUMN: error: PROBLEM; expected EXPECTED`, as compilers print.
    public var description: String {
        Diagnostic.text(
            file: file, line: line > 0 ? line : nil, column: line > 0 ? max(column, 1) : nil,
            problem: problem, expected: expected)
    }
}
