import BeekonDevice
import FleetDescription
import FleetEngine
import FleetRuntime

/// Reads `run --shard INDEX/COUNT`, `run --start-at INSTANT` and `run --clock-start INSTANT`; a
/// bad value stops the command with exit code 64, as a bad number does (`FlagNumber`).
public enum ShardFlag {
    /// Why a value is refused, as ArgumentParser prints it after the flag and the value.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Which shard a run is: one given, or one to claim among the replicas sharing its data folder.
    public enum Choice: Sendable, Hashable {
        case given(Shard)
        /// `auto/N`: the first index of N no running process holds (`ShardClaim`).
        case claimed(count: Int)
    }

    /// `2/4`: shard 2 (from 0) of 4; `auto/4`: a free one of 4.
    public static let read: @Sendable (String) throws -> Choice = { text in
        let expected =
            "INDEX/COUNT, such as 0/4: shard INDEX (from 0) of COUNT (1 to \(Int(Shard.countRange.upper))), "
            + "or auto/COUNT"
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2, parts[0] == "auto", let count = Int(parts[1]) {
            guard count >= 1, count <= Int(Shard.countRange.upper) else {
                throw Problem(description: "\(count) shards is out of range; expected \(expected)")
            }
            return .claimed(count: count)
        }
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw Problem(description: "\"\(text)\" is not a shard; expected \(expected)")
        }
        do throws(NumberProblem) {
            return .given(try Shard(index: index, count: count))
        } catch {
            throw Problem(
                description: count >= 1 && count <= Int(Shard.countRange.upper)
                    ? "shard index \(index) is out of range; expected 0 to \(count - 1) (from 0, below the count)"
                    : "\(count) shards is out of range; expected \(expected)")
        }
    }

    /// How far ahead a start barrier may be.
    public static let startAtMostAheadMillis: Int64 = 7 * 86_400_000

    /// An RFC 3339 instant with its zone, at most `startAtMostAheadMillis` ahead of now; Unix ms.
    public static let readStartAt: @Sendable (String) throws -> Int64 = { text in
        try startAt(text, wallNow: FleetRuntime.wallMillis())
    }

    /// An RFC 3339 instant with its zone from 1970 to 9999, the years the fleet file's
    /// `clock.start` takes (`Timestamp.inputRange`); Unix ms.
    public static func instant(_ text: String) throws(Problem) -> Int64 {
        let expected =
            "RFC 3339 with its zone, from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, such as "
            + "2026-11-27T12:00:00Z or 2026-11-27T13:00:00+01:00"
        guard let millis = Timestamp.unixMillis(parsingISO8601: text) else {
            throw Problem(description: "\"\(text)\" is not an instant; expected \(expected)")
        }
        guard Timestamp.inputRange.contains(Double(millis)) else {
            throw Problem(description: "\"\(text)\" is out of range; expected \(expected)")
        }
        return millis
    }

    /// `--clock-start`: where a fresh run's virtual clock starts (`instant`), Unix ms.
    public static let readClockStart: @Sendable (String) throws -> Int64 = { text in try instant(text) }

    /// `readStartAt` with the wall clock at `wallNow` (Unix ms).
    public static func startAt(_ text: String, wallNow: Int64) throws -> Int64 {
        let millis = try instant(text)
        guard millis - wallNow <= startAtMostAheadMillis else {
            throw Problem(
                description: "\(text) is \(FleetDuration.text(millis: millis - wallNow)) ahead; expected an instant "
                    + "at most 7 days from now (\(Timestamp.text(unixMillis: wallNow)))")
        }
        return millis
    }
}
