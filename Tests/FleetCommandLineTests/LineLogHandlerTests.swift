import FleetCommandLine
import Logging
import Testing

/// The log's line format and the level a command logs at, without running a command.
@Suite("Log lines and levels")
struct LineLogHandlerTests {
    @Test(
        "info and notice read as the program's own lines; every other level names itself",
        arguments: [
            (Logger.Level.trace, "beekon-fleet: trace: a\n"),
            (.debug, "beekon-fleet: debug: a\n"),
            (.info, "beekon-fleet: a\n"),
            (.notice, "beekon-fleet: a\n"),
            (.warning, "beekon-fleet: warning: a\n"),
            (.error, "beekon-fleet: error: a\n"),
            (.critical, "beekon-fleet: critical: a\n"),
        ])
    func levelWord(level: Logger.Level, line: String) {
        #expect(LineLogHandler.line(label: "beekon-fleet", level: level, message: "a") == line)
    }

    @Test("metadata follows the message as key=value, sorted by key")
    func metadata() {
        let line = LineLogHandler.line(
            label: "beekon-fleet receive", level: .debug, message: "limits",
            metadata: ["threads": "2", "connectionLimit": "956"])
        #expect(line == "beekon-fleet receive: debug: limits connectionLimit=956 threads=2\n")
    }

    @Test("an entry is always one line: control characters in the message and metadata are escaped")
    func oneLine() {
        let line = LineLogHandler.line(
            label: "beekon-fleet receiver", level: .debug, message: "POST /in\ngest\r: 404\u{1B}[31m",
            metadata: ["path": "a\tb"])
        #expect(line == "beekon-fleet receiver: debug: POST /in\\ngest\\r: 404\\u{1B}[31m path=a\\tb\n")
    }

    @Test("a handler's level and metadata are its own, as swift-log asks of a handler")
    func valueSemantics() {
        var first = Logger(label: "beekon-fleet") { LineLogHandler(label: $0, logLevel: .info) }
        var second = first
        second.logLevel = .error
        second[metadataKey: "device"] = "d-1"
        first[metadataKey: "group"] = "walkers"
        #expect(first.logLevel == .info && second.logLevel == .error)
        #expect(first[metadataKey: "device"] == nil && second[metadataKey: "group"] == nil)
    }

    @Test(
        "the level: --log-level wins over BEEKON_LOG_LEVEL, which wins over info; empty is unset; any case",
        arguments: [
            (nil, [:], Logger.Level.info),
            (nil, ["BEEKON_LOG_LEVEL": ""], .info),
            (nil, ["BEEKON_LOG_LEVEL": "error"], .error),
            (nil, ["BEEKON_LOG_LEVEL": "DEBUG"], .debug),
            (.warning, ["BEEKON_LOG_LEVEL": "debug"], .warning),
            (.trace, ["BEEKON_LOG_LEVEL": "loud"], .trace),
        ] as [(Logger.Level?, [String: String], Logger.Level)])
    func precedence(flag: Logger.Level?, environment: [String: String], level: Logger.Level) throws {
        #expect(try LogLevelOptions.level(flag: flag, environment: environment) == level)
    }

    @Test("a bad BEEKON_LOG_LEVEL names the variable, the value and every level")
    func badEnvironment() {
        #expect {
            try LogLevelOptions.level(flag: nil, environment: ["BEEKON_LOG_LEVEL": "loud"])
        } throws: { error in
            "\(error)".contains(
                "BEEKON_LOG_LEVEL \"loud\" is not a log level; "
                    + "expected one of trace, debug, info, notice, warning, error, critical"
            )
        }
    }

    @Test("every level reads by its name, and nothing else does", arguments: ["warn", "fatal", "0", "", " info"])
    func names(text: String) throws {
        for level in Logger.Level.allCases { #expect(try LogLevelOptions.read(level.rawValue) == level) }
        #expect(throws: LogLevelProblem.self) { try LogLevelOptions.read(text) }
    }
}
