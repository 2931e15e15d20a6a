/// A route file that could not be read, located to the line and column where it went wrong.
///
/// Printed the way compilers print diagnostics (`FILE:LINE:COLUMN: error: …; expected …`) so an
/// editor or terminal can jump straight to the offending cell.
public struct RouteError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The file as the caller named it (a path for `Route.load`, the `file:` label for `parse`).
    public var file: String
    /// The 1-based line of the problem, when the problem has a place in the file.
    public var line: Int?
    /// The 1-based column (in characters) of the problem, when known.
    public var column: Int?
    /// What was wrong, e.g. `"abc" is not a number`.
    public var problem: String
    /// What the reader expected instead, e.g. `a latitude in degrees`; nil when nothing fits.
    public var expected: String?

    /// An error in `file` at `line`:`column` saying what was wrong and what was expected.
    public init(
        file: String, line: Int? = nil, column: Int? = nil, problem: String,
        expected: String? = nil
    ) {
        self.file = file
        self.line = line
        self.column = column
        self.problem = problem
        self.expected = expected
    }

    /// `FILE:LINE:COLUMN: error: problem; expected what` (line and column left out when unknown).
    public var description: String {
        Diagnostic.text(file: file, line: line, column: column, problem: problem, expected: expected)
    }

    init(file: String, at position: RouteSourcePosition?, problem: String, expected: String?) {
        self.init(
            file: file, line: position?.line, column: position?.column, problem: problem,
            expected: expected)
    }

    /// The problem of a route file that is not there (`Route.load`).
    public static let noSuchFile = "no such file"

    /// The standard wording for a cell that should have been a number.
    static func notANumber(
        _ text: some StringProtocol, file: String, at position: RouteSourcePosition?,
        expected: String
    ) -> RouteError {
        RouteError(
            file: file, at: position, problem: "\"\(text)\" is not a number", expected: expected)
    }
}
