/// Why a run could not start.
public struct RunError: Error, Sendable, CustomStringConvertible {
    public let description: String

    package init(description: String) {
        self.description = description
    }
}
