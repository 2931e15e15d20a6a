import Foundation
import Logging

/// The log handler of both executables: each entry is one line on standard error in the
/// program's own voice, `LABEL: MESSAGE` at info and notice, `LABEL: LEVEL: MESSAGE` otherwise
/// (`beekon-fleet: warning: …`, `beekon-fleet receive: debug: …`), metadata after the message
/// as `key=value`.
public struct LineLogHandler: LogHandler {
    /// What every line starts with: the logger's label (`beekon-fleet`, `beekon-fleet receive`).
    public let label: String
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    /// A handler for the logger labelled `label`, passing `logLevel` and above.
    public init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let own = event.metadata { merged.merge(own) { _, new in new } }
        let line = Self.line(label: label, level: event.level, message: event.message.description, metadata: merged)
        // One write per line: lines from several threads never interleave, and none waits in a buffer.
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// The line for one entry, newline included. Control characters in the message or metadata
    /// (a request path with `%0A` in it) are escaped, so an entry is always exactly one line.
    public static func line(
        label: String, level: Logger.Level, message: String, metadata: Logger.Metadata = [:]
    ) -> String {
        var line = label + ": "
        // Info and notice are the program's plain voice, as its lines have always read; the others say what they are.
        if level != .info, level != .notice { line += level.rawValue + ": " }
        line += escaped(message)
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += " \(escaped(key))=\(escaped(value.description))"
        }
        return line + "\n"
    }

    /// `text` with control characters as `\n`, `\r`, `\t` or `\u{1B}`.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.properties.generalCategory == .control:
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
