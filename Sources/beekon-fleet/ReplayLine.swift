import BeekonDevice
import FleetDescription
import FleetEngine

/// The run's last word on replaying it: the command that sends the same requests again, from a
/// fresh data folder. One function says it, so a new flag that changes what replays is added here.
enum ReplayLine {
    /// What of a run its replay needs.
    struct Run {
        var fleetPath: String
        var seed: UInt64
        /// The run's first virtual instant, Unix ms.
        var virtualStart: Int64
        var warp: Warp
        /// The run's answers took modelled time (`--timing modelled`, or `auto` at a warp not 1).
        var modelled: Bool
        /// Flags given that change what the devices do: `--for`, `--devices`, `--ingest`, `--shard`.
        var virtualDurationMillis: Int64?
        var devices: Int?
        var ingest: String?
        var shard: Shard
        /// It ended at its virtual-time limit (else it stopped where the wall clock or Ctrl-C did).
        var reachedItsEnd: Bool
        /// The data folder whose earlier run it resumed, if it did.
        var resumed: String?
    }

    /// `replay: beekon-fleet run fleets/demo.yaml --seed 42 --clock-start … --timing modelled --data FRESH-FOLDER`,
    /// or why no fresh folder replays it.
    static func text(_ run: Run) -> String {
        if let folder = run.resumed {
            return "replay: none from a fresh folder: this run resumed the devices of an earlier run on \(folder), "
                + "with their sessions and pending fixes"
        }
        let rate = run.warp.rate.map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int64($0)) : "\($0)" }
        var words = ["beekon-fleet", "run", quoted(run.fleetPath), "--seed", "\(run.seed)"]
        words += ["--clock-start", Timestamp.text(unixMillis: run.virtualStart), "--warp", rate ?? Warp.maxWord]
        words += ["--timing", "modelled"]
        if let millis = run.virtualDurationMillis { words += ["--for", FleetDuration.text(millis: millis)] }
        if let devices = run.devices { words += ["--devices", "\(devices)"] }
        if let ingest = run.ingest { words += ["--ingest", quoted(ingest)] }
        if run.shard != .whole { words += ["--shard", "\(run.shard)"] }
        words += ["--data", "FRESH-FOLDER"]
        let command = words.joined(separator: " ")
        let end =
            run.reachedItsEnd
            ? "" : " (this run was stopped before a virtual end: a replay sends the same only as far as it got)"
        guard run.modelled else {
            return "replay: this run's answers took their real time × the warp, which no run repeats; "
                + "with --timing modelled, a run replays byte for byte: \(command)\(end)"
        }
        return "replay: \(command)\(end)"
    }

    /// `text` as one shell word.
    static func quoted(_ text: String) -> String {
        let plain = text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-:=+,@%".contains($0)) }
        return plain && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
