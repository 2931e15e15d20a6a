import BeekonDevice
import Foundation

/// What a run keeps in its data folder's `clock.json`: how far its virtual clock got and at what
/// warp, so the next run on the folder continues from there instead of going back in time.
///
/// Written a few times a real second while the run goes (so a SIGKILL loses at most
/// `writeIntervalNanos` of it) and once more when it finishes, marked `stopped`.
public struct ClockRecord: Sendable, Hashable {
    /// The virtual time the run had reached, Unix ms: nothing it stamped (fix, event, `sent_at`,
    /// batch id) was later than this when the record was written.
    public var reachedMillis: Int64
    /// The warp at the time of writing.
    public var warp: Double
    /// The run finished and wrote this last: it stamped nothing past `reachedMillis`.
    public var stopped: Bool

    /// The file's name in the data folder.
    public static let fileName = "clock.json"

    /// How often, in real time, a running fleet rewrites the record (and also whenever the warp
    /// changes): 250 ms, so a resume after a SIGKILL skips little virtual time, while the write
    /// costs nothing next to the stores'.
    public static let writeIntervalNanos: UInt64 = 250_000_000

    /// The shape `clock.json` must have, for error messages.
    static let expected =
        #"a JSON object {"reached_unix_ms": <Unix ms, 1970 to 9999>, "warp": "#
        + #"<\#(FleetClock.warpRange)>, "stopped": <true or false>}"#

    /// A record of `reachedMillis` at `warp`; `stopped` for the last one a run writes.
    public init(reachedMillis: Int64, warp: Double, stopped: Bool) {
        self.reachedMillis = reachedMillis
        self.warp = warp
        self.stopped = stopped
    }

    /// The latest instant the run that wrote this can have stamped anything at: `reachedMillis`
    /// when it stopped; otherwise it may have run on for up to a write interval, plus the lag the
    /// clock may run ahead of the loop, at this warp before it died unrecorded.
    public var latestPossibleMillis: Int64 {
        guard !stopped else { return reachedMillis }
        let realNanos = Double(Self.writeIntervalNanos + FleetClock.maxLagRealNanos)
        return reachedMillis + Int64((realNanos / 1_000_000 * warp).rounded(.up))
    }

    /// The record as the file holds it.
    public var json: Data {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("reached_unix_ms")
        writer.integer(reachedMillis)
        writer.key("warp")
        writer.number(warp)
        writer.key("stopped")
        writer.bool(stopped)
        writer.endObject()
        return Data(writer.bytes + [UInt8(ascii: "\n")])
    }

    private struct Stored: Decodable {
        var reachedUnixMillis: Int64
        var warp: Double
        var stopped: Bool

        enum CodingKeys: String, CodingKey {
            case reachedUnixMillis = "reached_unix_ms"
            case warp
            case stopped
        }
    }

    /// Reads a record from `data`, the contents of the file at `path`; throws a `RunError` that
    /// names the file, what is wrong and what was expected.
    public init(json data: Data, path: String) throws(RunError) {
        let stored: Stored
        do {
            stored = try JSONDecoder().decode(Stored.self, from: data)
        } catch let error as DecodingError {
            throw Self.problem(path, Self.describe(error))
        } catch {
            throw Self.problem(path, "\(error)")
        }
        guard Timestamp.inputRange.contains(Double(stored.reachedUnixMillis)) else {
            throw Self.problem(
                path, "has \"reached_unix_ms\" \(stored.reachedUnixMillis) that is not between 1970 and 9999")
        }
        do throws(NumberProblem) {
            _ = try FleetClock.warpRange.check(stored.warp)
        } catch {
            throw Self.problem(path, "has \"warp\" \(error.value) that \(error.problem)")
        }
        self.init(reachedMillis: stored.reachedUnixMillis, warp: stored.warp, stopped: stored.stopped)
    }

    /// The error for a clock file that cannot be used, saying what to do about it.
    package static func problem(_ path: String, _ what: String) -> RunError {
        RunError(
            description:
                "the clock file \(path) \(what); expected \(expected), as beekon-fleet run writes it. "
                + "It tells a resumed run where the last run on this data folder left its virtual clock; "
                + "delete it to resume just after the newest fix or event the stores hold "
                + "(uploads the last run made after that instant may then be outdated by the resumed run's)")
    }

    private static func describe(_ error: DecodingError) -> String {
        func field(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "the file" : "\"" + path.map(\.stringValue).joined(separator: ".") + "\""
        }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return "is not a JSON object"
        case .dataCorrupted(let context):
            return "has \(field(context.codingPath)) of the wrong kind"
        case .keyNotFound(let key, _):
            return "has no \"\(key.stringValue)\""
        case .typeMismatch(let type, let context):
            return context.codingPath.isEmpty
                ? "is not a JSON object" : "has \(field(context.codingPath)) that is not \(kind(type))"
        case .valueNotFound(_, let context):
            return "has \(field(context.codingPath)) that is null"
        @unknown default:
            return "cannot be read: \(error)"
        }
    }

    private static func kind(_ type: Any.Type) -> String {
        switch type {
        case is Bool.Type: "true or false"
        case is Int64.Type: "an integer"
        case is Double.Type: "a number"
        default: "a \(type)"
        }
    }
}
