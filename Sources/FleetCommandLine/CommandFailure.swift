/// A command that could not do its job; the message says why and what to do.
public struct CommandFailure: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
