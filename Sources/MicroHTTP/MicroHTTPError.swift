/// Why the daemon could not start.
public struct MicroHTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong and what was expected.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
