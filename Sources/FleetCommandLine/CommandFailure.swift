import ArgumentParser

/// A command that could not do its job; the message says why and what to do. It exits 1 (the
/// run could not go on), or 64 for input the command cannot take (`.usage`, as ArgumentParser
/// exits for a bad flag).
public struct CommandFailure: Error, CustomStringConvertible {
    public let description: String
    public let exitCode: ExitCode
    /// Whether it is printed after `Error: `; not for lines that say `error:` themselves
    /// (a fleet file's `FILE:LINE:COLUMN: error: …`).
    public let prefixed: Bool

    public init(_ description: String, exitCode: ExitCode = .failure, prefixed: Bool = true) {
        self.description = description
        self.exitCode = exitCode
        self.prefixed = prefixed
    }
}

extension ExitCode {
    /// 64, `EX_USAGE`: a bad flag or fleet file.
    public static let usage = ExitCode(64)
}
