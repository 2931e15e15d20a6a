import Logging

/// A value that names no log level; says which names do.
public struct LogLevelProblem: Error, CustomStringConvertible {
    /// The value as given.
    public let text: String

    /// `"loud" is not a log level; expected one of trace, debug, info, notice, warning, error, critical`.
    public var description: String {
        "\"\(text.prefix(100))\" is not a log level; expected one of "
            + Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
    }
}
