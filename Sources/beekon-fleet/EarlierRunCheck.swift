import BeekonDevice
import FleetCommandLine
import FleetDescription
import FleetEngine
import FleetRuntime

/// What `run` does with the earlier run its data folder holds, decided before it creates
/// anything: resume it when it was a run of the same fleet and ingest (`RunIdentity`), refuse
/// it when not (exit 64) unless told `--resume`, discard it with `--fresh`; and refuse
/// `--clock-start` on it, which a resume would not use.
struct EarlierRunCheck {
    /// Whether the run goes on with an earlier run's devices (so no fresh folder replays it).
    var resumes = false
    /// What to say about it, once: a discard, a resume against another ingest, a folder with no record.
    var lines: [String] = []

    static func decide(
        data: String, identity: RunIdentity, fleet: FleetFile, seed: UInt64, clockStart: Int64?, resume: Bool,
        fresh: Bool
    ) throws -> EarlierRunCheck {
        var check = EarlierRunCheck()
        if DataFolder.discardUnfinished(data) {
            try discard(data)
            check.lines.append("finished discarding the earlier run in \(data), which an interrupted --fresh began")
        }
        let found: DataFolder.EarlierRun?
        do throws(RunError) {
            found = try DataFolder.earlierRun(data)
        } catch {
            throw CommandFailure("\(error)")
        }
        guard let earlier = found else {
            if fresh { check.lines.append("--fresh: \(data) holds no earlier run; starting anew") }
            return check
        }
        if fresh {
            let stores = DataFolder.stores(of: earlier)
            let made = earlier.installIDs().count
            try discard(data)
            let fleetName = if case .identity(let held) = earlier.record { "fleet \"\(held.fleet)\": " } else { "" }
            let devices = made == 1 ? "1 device" : "\(made) devices"
            let unread = stores.unreadable > 0 ? " (\(stores.unreadable) stores could not be read)" : ""
            check.lines.append(
                "--fresh: discarded the earlier run in \(data) (\(fleetName)\(devices), "
                    + "their stores and its clock), with \(stores.pending) fixes pending\(unread)")
            return check
        }
        if let clockStart {
            let resumed = DataFolder.resumeStart(
                of: earlier, fleet: fleet, seed: seed, wallNow: FleetRuntime.wallMillis())
            let given = Timestamp.text(unixMillis: clockStart)
            throw CommandFailure(
                "--clock-start \(given): the data folder \(data) holds an earlier run, which a run resumes at "
                    + "\(Timestamp.text(unixMillis: resumed.millis)) (after everything it stamped), not at a given "
                    + "instant; --fresh discards that run and starts at \(given), or give another --data",
                exitCode: .usage)
        }
        check.resumes = true
        let waysOn =
            "--resume resumes its devices anyway (their pending fixes go to this run's ingest); --fresh discards "
            + "them, their stores and pending fixes, and starts anew; or give another --data"
        switch earlier.record {
        case .missing:
            check.lines.append(
                "the data folder \(data) does not record the fleet and ingest of its earlier run (it is older than "
                    + "\(RunIdentity.fileName)): resuming it; this run records its own")
        case .identity(let held):
            guard let difference = identity.difference(from: held, dataDirectory: data) else { break }
            guard resume else { throw CommandFailure("\(difference). \(waysOn)", exitCode: .usage) }
            check.lines.append("resuming anyway (--resume): \(difference)")
        case .unreadable(let problem):
            guard resume else { throw CommandFailure("\(problem). \(waysOn)", exitCode: .usage) }
            check.lines.append("resuming anyway (--resume): \(problem)")
        }
        return check
    }

    private static func discard(_ data: String) throws {
        do {
            try DataFolder.discard(data)
        } catch {
            throw CommandFailure("--fresh: cannot discard the earlier run in \(data): \(error.localizedDescription)")
        }
    }
}
