import ArgumentParser

/// A command that takes `--log-level` (as `@OptionGroup var logging: LogLevelOptions`).
public protocol LoggingCommand: ParsableCommand {
    var logging: LogLevelOptions { get }
}
