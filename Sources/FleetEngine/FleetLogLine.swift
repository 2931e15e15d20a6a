import Logging

/// An entry the engine asks its driver to log: its level and its message, in the program's words
/// (the log handler starts the line with `beekon-fleet: ` and the level).
package struct FleetLogLine: Hashable, Sendable {
    package var level: Logger.Level
    package var message: String

    package init(_ level: Logger.Level, _ message: String) {
        self.level = level
        self.message = message
    }
}
