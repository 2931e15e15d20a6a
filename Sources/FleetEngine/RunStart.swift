import BeekonDevice

/// Where a run's virtual clock starts, and why.
///
/// On a fresh data folder, at the fleet file's `clock.start` (the wall clock for `now`). On a
/// folder an earlier run used, after everything that run can have stamped, whatever `clock.start`
/// says, so fixes, `sent_at` and batch ids never go back in time across a restart: 1 ms past the
/// later of what `clock.json` allows for and the newest fix or geofence event the stores hold
/// (or the wall clock, for `clock.start: now`, when that is later still).
public struct RunStart: Sendable, Hashable {
    /// What set the start.
    public enum Reason: Sendable, Hashable {
        /// No earlier run on the data folder: `clock.start`, or the wall clock for `now`.
        case fresh
        /// The previous run stopped and recorded where: 1 ms after it.
        case stopped
        /// The previous run died without a last record: 1 ms after the most it can have run on
        /// past its last record, `slackMillis` of virtual time (its warp × the write interval and
        /// the clock's lag bound).
        case unrecorded(slackMillis: Int64)
        /// 1 ms after the newest stored fix or geofence event (later than the clock file
        /// allows for, or there is no clock file: a run of an older build).
        case stored
        /// `clock.start: now` and the wall clock is later than everything the earlier run stamped.
        case wallClock
        /// An earlier run made devices but left no clock file and no stored row: `clock.start`,
        /// or the wall clock for `now`, as on a fresh folder.
        case noTrace
    }

    /// The first virtual instant of the run, Unix ms.
    public let millis: Int64
    /// Why it is that instant.
    public let reason: Reason

    /// The start for a run whose fleet file gives `configured` (nil for `now`) with the wall
    /// clock at `wallNow`; `earlierRun` when the data folder holds one (devices or a clock file),
    /// `record` its clock file and `newestStored` the newest fix or event in the stores the run
    /// opens.
    public static func resolve(
        configured: Int64?, wallNow: Int64, earlierRun: Bool, record: ClockRecord?, newestStored: Int64?
    ) -> RunStart {
        let planned = configured ?? wallNow
        guard earlierRun || record != nil else { return RunStart(millis: planned, reason: .fresh) }
        var floor: (millis: Int64, reason: Reason)?
        if let record {
            let latest = record.latestPossibleMillis
            floor = (latest + 1, record.stopped ? .stopped : .unrecorded(slackMillis: latest - record.reachedMillis))
        }
        // Ties go to the clock file: it accounts for uploads too, which the stores do not keep.
        if let newestStored, newestStored + 1 > floor?.millis ?? .min {
            floor = (newestStored + 1, .stored)
        }
        guard let floor else { return RunStart(millis: planned, reason: .noTrace) }
        if configured == nil, wallNow > floor.millis {
            return RunStart(millis: wallNow, reason: .wallClock)
        }
        return RunStart(millis: floor.millis, reason: floor.reason)
    }

    /// The line a run prints when it starts on a folder an earlier run used; nil on a fresh one.
    public var notice: String? {
        let at = Timestamp.text(unixMillis: millis)
        let resuming = "beekon-fleet: resuming at \(at), "
        let timeline = "; `clock.start` is not used, and spawns and faults count from this instant"
        switch reason {
        case .fresh:
            return nil
        case .stopped:
            return resuming + "1 ms after the previous run on this data folder stopped (\(ClockRecord.fileName))"
                + timeline
        case .unrecorded(let slack):
            return resuming
                + "past anything the previous run on this data folder can have stamped: it did not stop cleanly, "
                + "so \(Self.seconds(slack)) of virtual time after its last record in \(ClockRecord.fileName)"
                + timeline
        case .stored:
            return resuming + "1 ms after the newest fix or geofence event the device stores hold" + timeline
        case .wallClock:
            return resuming
                + "the wall clock (`clock.start: now`), later than anything the previous run "
                + "on this data folder stamped"
                + timeline
        case .noTrace:
            return "beekon-fleet: starting at \(at) (`clock.start`): the data folder has devices from an earlier run "
                + "but no \(ClockRecord.fileName) and no stored fix or geofence event to continue from"
        }
    }

    /// `1050 s`, `0.35 s`.
    private static func seconds(_ millis: Int64) -> String {
        millis % 1000 == 0 ? "\(millis / 1000) s" : "\(Double(millis) / 1000) s"
    }
}
