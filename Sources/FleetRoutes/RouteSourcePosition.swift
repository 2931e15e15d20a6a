/// A 1-based line and column in a route file, carried with each point so that validation can
/// point at the cell that broke a rule.
struct RouteSourcePosition: Hashable, Sendable {
    package var line: Int
    package var column: Int?
}
