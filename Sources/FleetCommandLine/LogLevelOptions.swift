import ArgumentParser
import Foundation
import Logging

/// `--log-level LEVEL` of the commands that log as they go (`run`, `receive`); without it,
/// `BEEKON_LOG_LEVEL`; without either, `info`, which shows every line the program printed
/// before it had levels. The flag wins: it is the more specific of the two, as
/// `--admin-token` wins over `BEEKON_ADMIN_TOKEN`.
public struct LogLevelOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            """
            The least severe log lines shown on stderr: trace, debug, info, notice, \
            warning, error or critical (default: env BEEKON_LOG_LEVEL, else info).
            """,
            valueName: "level"),
        transform: { text in try LogLevelOptions.read(text) })
    public var logLevel: Logger.Level?

    public init() {}

    /// The environment variable read when `--log-level` is not given.
    public static let environmentVariable = "BEEKON_LOG_LEVEL"

    /// The level with neither the flag nor the variable.
    public static let defaultLevel = Logger.Level.info

    /// Refuses a bad `BEEKON_LOG_LEVEL` while the arguments are parsed, so the error comes with
    /// the command's usage and exit code 64, as a bad flag does.
    public func validate() throws {
        _ = try Self.level(flag: logLevel)
    }

    /// The level to log at: `flag` (`--log-level`), else `BEEKON_LOG_LEVEL` (empty counts as
    /// unset), else `defaultLevel`.
    public static func level(
        flag: Logger.Level?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Logger.Level {
        if let flag { return flag }
        guard let text = environment[Self.environmentVariable], !text.isEmpty else { return Self.defaultLevel }
        do throws(LogLevelProblem) {
            return try Self.read(text)
        } catch {
            throw ValidationError("\(Self.environmentVariable) \(error)")
        }
    }

    /// A level's name, in any case.
    public static func read(_ text: String) throws(LogLevelProblem) -> Logger.Level {
        guard let level = Logger.Level(rawValue: text.lowercased()) else { throw LogLevelProblem(text: text) }
        return level
    }
}

extension ParsableCommand {
    /// The executable's `main`: parses the arguments, sets up logging once for the whole process
    /// (the chosen command's `--log-level`, else `BEEKON_LOG_LEVEL`, else `info`), then runs the
    /// command. Loggers made before this would keep swift-log's default handler, so nothing
    /// makes one earlier.
    public static func mainWithLogging() {
        do {
            var command = try parseAsRoot()
            let flag = (command as? any LoggingCommand)?.logging.logLevel
            let level = try LogLevelOptions.level(flag: flag)
            LoggingSystem.bootstrap { label in LineLogHandler(label: label, logLevel: level) }
            try command.run()
        } catch let failure as CommandFailure where failure.exitCode != .failure {
            FileHandle.standardError.write(Data("\(failure.prefixed ? "Error: " : "")\(failure.description)\n".utf8))
            exit(withError: failure.exitCode)
        } catch {
            exit(withError: error)
        }
    }
}
