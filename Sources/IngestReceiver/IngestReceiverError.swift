/// Why the receiver could not start, or why its configuration or rules file was refused.
///
/// The message names the file, the field and what was expected, so it can be printed as it is.
public struct IngestReceiverError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of thing went wrong.
    public enum Kind: String, Sendable, Hashable {
        /// The SQLite database could not be opened or set up.
        case database
        /// The HTTP daemon could not listen on the address.
        case listen
        /// A rules file could not be read or holds a bad value.
        case rules
        /// A configuration value (a flag) is out of range or malformed.
        case configuration
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// What went wrong and what was expected.
    public var message: String

    /// An error of `kind` saying `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
