import FleetEngine

/// A run's report: `run --report FILE` at its end and `GET /api/v1/report` live. Its members are
/// written snake_case (`keyStyle`), as a file other tools read (k6's and Locust's exports are);
/// the figures it shares with the API are the API's own types (`PercentilesBody`, `FixesBody`,
/// `FleetHealthBody`). Its JSON Schema is generated from this type like the API's
/// (`docs/report.schema.json`, and `RunReport` in the OpenAPI document).
package struct RunReportBody: APIBody {
    package static let keyStyle = APIKeyStyle.snakeCase

    struct Outcome: APIBody {
        var count: Int
        var rate: Double
        var perSecond: Double
        var latencyMs: PercentilesBody

        static let example = Outcome(count: 0, rate: 0, perSecond: 0, latencyMs: .example)
        static let notes = [
            "rate": APINote("The share of all uploads, 0 to 1."),
            "per_second": APINote("Per second of real time over the run."),
            "latency_ms": APINote("Virtual ms from send to this outcome, as the devices lived it."),
        ]
    }

    struct Uploads: APIBody {
        var total: Int
        var byOutcome: APIMap<Outcome>

        init(_ outcomes: [TransferOutcome: UploadStats.Tally], realSeconds: Double) {
            total = outcomes.values.reduce(0) { $0 + $1.count }
            let all = total
            byOutcome = APIMap(
                sorting: outcomes.mapValues { tally in
                    Outcome(
                        count: tally.count, rate: all == 0 ? 0 : Rounding.ratio(Double(tally.count) / Double(all)),
                        perSecond: realSeconds > 0 ? Rounding.ratio(Double(tally.count) / realSeconds) : 0,
                        latencyMs: PercentilesBody(tally.latency))
                })
        }

        static let example = Uploads([:], realSeconds: 0)
        static let notes = [
            "by_outcome": APINote(
                "By what the devices heard: a status (`200`, `503`), a network failure (`timeout`: the server's, no "
                    + "answer within the SDK's timeout in real time; `refused`, `reset`, `dns`, `tls`, `other`), a "
                    + "fault (`offline`, `injected-timeout`) or the fleet's own (`warp-timeout`, "
                    + "`not-sent-connection-cap`, `not-sent-descriptors`, `not-sent-source-address`; see "
                    + "`fleet_health`; and a modelled network's failures, never sent: `injected-dns`, "
                    + "`injected-tls`, `injected-reset`).")
        ]
    }

    /// What the server sees twice: the counts of `FixAccount.counters` that say so, then the
    /// in-process receiver's own count.
    struct Duplicates: APIBody {
        var counts: FixCounts
        var receiverBatches: Int?
        var receiverFixes: Int?

        enum CodingKeys: CodingKey {
            case receiverBatches, receiverFixes
        }

        init(_ account: FixAccount, receiver: FixAccount.Resent?) {
            counts = FixCounts(account) { $0.duplicates != nil }
            receiverBatches = receiver?.batches
            receiverFixes = receiver?.fixes
        }

        func encode(to encoder: any Encoder) throws {
            try counts.encodeFlat(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(receiverBatches, forKey: .receiverBatches)
            try container.encode(receiverFixes, forKey: .receiverFixes)
        }

        /// The count the table names `name` in the report (`unheardBatches`), 0 when none.
        func count(_ name: String) -> Int {
            counts.values.first { FixCounts.flatName($0.counter) == name }?.value ?? 0
        }

        static let example = Duplicates(FixAccount(), receiver: nil)
        static let notes = FixCounts.reportNotes { $0.duplicates != nil }.merging([
            "receiver_batches": APINote("Duplicate batches the in-process receiver saw; null with another server.")
        ]) { own, _ in own }
    }

    struct Group: APIBody {
        var devices: Int
        var devicesByState: APIMap<Int>
        var fixes: FixesBody.Ledger
        var fixAgeMs: PercentilesBody
        var uploads: Uploads
        var latencyMs: PercentilesBody
        var serverLatencyMs: PercentilesBody
        var duplicates: Duplicates

        init(_ figures: RunFigures, devicesByState: [DeviceState: Int], receiver: FixAccount.Resent?) {
            devices = devicesByState.values.reduce(0, +)
            self.devicesByState = APIMap(sorting: devicesByState)
            fixes = FixesBody.Ledger(figures.fixes)
            fixAgeMs = PercentilesBody(figures.fixes.ageAtAcknowledgement)
            uploads = Uploads(figures.uploads, realSeconds: figures.realSeconds)
            latencyMs = PercentilesBody(figures.latency)
            serverLatencyMs = PercentilesBody(figures.serverLatency)
            duplicates = Duplicates(figures.fixes, receiver: receiver)
        }

        static let example = Group(RunFigures(FleetMetrics()), devicesByState: [:], receiver: nil)
        static let notes = [
            "fix_age_ms": APINote("Virtual ms from a fix's timestamp to its batch's acknowledgement."),
            "latency_ms": APINote(
                "Every upload's virtual ms from send to outcome, as the devices heard it (see `timing`: modelled "
                    + "answers take 100 virtual ms whatever the server's real time)."),
            "server_latency_ms": APINote(
                "Real ms the server took to answer each upload (heard in time or not), the same at any warp: "
                    + "the server's own speed (`server.latency.*` thresholds)."),
        ]
    }

    struct Drain: APIBody {
        var fault: Int
        var source: ActionSource
        var action: String
        var startedAt: APITime
        var endedAt: APITime
        var pendingBefore: Int
        var pendingAtEnd: Int
        var drainMs: Int64?

        init(_ drain: FaultDrain) {
            fault = drain.fault
            source = drain.source
            action = drain.action.rawValue
            startedAt = APITime(drain.startedAt)
            endedAt = APITime(drain.endedAt)
            pendingBefore = drain.pendingBefore
            pendingAtEnd = drain.pendingAtEnd
            drainMs = drain.drainMillis
        }

        static let example = Drain(
            FaultDrain(
                fault: 0, source: .timeline, action: .networkOffline, startedAt: 0, endedAt: 0, pendingBefore: 0,
                pendingAtEnd: 0, drainMillis: nil))
        static let notes = [
            "fault": APINote("The fault's number, as `faults` gives it."),
            "source": APINote("Where the fault came from: the fleet file's `timeline`, or the `api`."),
            "drain_ms": APINote(
                "Virtual ms from the fault's end until as few fixes were pending as when it began; null while "
                    + "still draining."),
        ]
    }

    /// A fault as it ran, the fleet file's or the API's.
    struct FaultRun: APIBody {
        var fault: Int
        var source: ActionSource
        var action: String
        var startedAt: APITime
        var endsAt: APITime?
        var applied: Int

        init(_ fault: TimelineFault) {
            self.fault = fault.fault
            source = fault.source
            action = fault.action.rawValue
            startedAt = APITime(fault.startedAt)
            endsAt = APITime(optional: fault.endsAt)
            applied = fault.applied
        }

        static let example = FaultRun(
            TimelineFault(fault: 0, source: .timeline, action: .networkOffline, startedAt: 0, endsAt: nil, applied: 0))
        static let notes = [
            "fault": APINote(
                "Its number: its place in the fleet file's `faults:` (from 0), or, for one the API began, after them."),
            "source": APINote("Where it came from: the fleet file's `timeline`, or the `api` (REST or the page)."),
            "ends_at": APINote(
                "When its `for` ended it, or the API did (its opposite action, or `DELETE /api/v1/faults/{fault}`); "
                    + "null without either."),
            "applied": APINote("Devices it was applied to."),
        ]
    }

    struct ThresholdBody: APIBody {
        var expression: String
        var group: String?
        var passed: Bool
        var value: Double?

        static let example = ThresholdBody(expression: "", group: nil, passed: false, value: nil)
        static let notes = [
            "value": APINote("What the metric measured (ms for durations, 0 to 1 for rates); null: nothing to measure.")
        ]
    }

    /// Whether the run kept up with its warp (`FleetPace`).
    struct Pace: APIBody {
        var behindSeconds: Double
        var minAchievedWarp: Double?
        var behind: Bool

        init(_ pace: FleetPace) {
            behindSeconds = Rounding.seconds(pace.behindSeconds)
            minAchievedWarp = pace.minAchievedWarp.map(Rounding.warp)
            behind = pace.behind
        }

        static let example = Pace(FleetPace())
        static let summary: String? =
            "Whether the run kept up with its warp, measured once a real second over the last "
            + "\(PaceMeter.windowSeconds) real seconds (see `FleetSummary.pace`)."
        static let notes = [
            "behind_seconds": APINote(
                "Real seconds the run was behind its warp: the achieved warp below "
                    + "\(Int(PaceMeter.behindFraction * 100)) % of the warp set, or timers' p99 lateness over "
                    + "\(Int(PaceMeter.latenessBoundMillis)) ms (never at max warp).", minimum: 0),
            "min_achieved_warp": APINote(
                "The lowest achieved warp measured while a warp was set (virtual seconds per real second over the "
                    + "window); null when none was (max warp throughout, or a run shorter than a second).",
                minimum: 0),
            "behind": APINote("Behind at the last measurement (at the end, for a finished run)."),
        ]
    }

    /// The part of the fleet a run of `run --shard` ran.
    struct ShardBody: APIBody {
        var index: Int
        var count: Int

        static let example = ShardBody(index: 0, count: 1)
        static let summary: String? = "Shard `index` of `count` (`run --shard INDEX/COUNT`)."
        static let notes = [
            "index": APINote("From 0.", minimum: 0, maximum: Double(Shard.countRange.upper - 1)),
            "count": APINote(
                "How many shards the fleet was split into.", minimum: Shard.countRange.lower,
                maximum: Shard.countRange.upper),
        ]
    }

    enum EndedBy: String, APIEnum {
        case stopped
        case thresholdAbort = "threshold_abort"
        case wallClockLimit = "wall_clock_limit"
        case virtualTimeLimit = "virtual_time_limit"
    }

    var name: String
    var seed: String
    var startedAt: APITime
    var virtualTime: APITime
    var virtualSeconds: Double
    var realSeconds: Double
    var endedBy: EndedBy?
    var abortedBy: String?
    var exitCode: Int?
    var digest: String?
    var devices: Int
    var devicesByState: APIMap<Int>
    var fixes: FixesBody.Ledger
    var lostByCause: APIMap<Int>
    var fixAgeMs: PercentilesBody
    var uploads: Uploads
    var timing: TimingBody
    var latencyMs: PercentilesBody
    var serverLatencyMs: PercentilesBody
    var fleetHealth: FleetHealthBody
    var duplicates: Duplicates
    var faults: [FaultRun]
    var drains: [Drain]
    var thresholds: [ThresholdBody]
    var thresholdsCount: Bool
    package var serverTruth: ServerTruthBody?
    var groups: APIMap<Group>
    var pace: Pace
    var shard: ShardBody?
    package var mergeState: String?

    /// The threshold that aborted the run.
    package struct ThresholdAbortRecord: Sendable {
        var expression: String
        package init(expression: String) { self.expression = expression }
    }

    /// The report of the run `snapshot` shows: live (no end, exit code or digest yet), or at its
    /// end with them. `devicesByGroup` counts the devices of each group by state when the
    /// snapshot has no device table (a merged report's); `shard` is the part of the fleet it ran.
    package init(
        _ snapshot: FleetSnapshot, end: RunEnd? = nil, abortedBy: ThresholdAbortRecord? = nil, exitCode: Int? = nil,
        digest: String? = nil, receiver: FixAccount.Resent? = nil, shard: Shard = .whole,
        devicesByGroup: [String: [DeviceState: Int]]? = nil, serverTruth: ServerTruthBody? = nil
    ) {
        let metrics = snapshot.metrics
        name = snapshot.name
        seed = String(snapshot.seed)
        startedAt = APITime(snapshot.startedAt)
        virtualTime = APITime(snapshot.virtualNow)
        virtualSeconds = Double(snapshot.virtualNow - snapshot.startedAt) / 1000
        realSeconds = Rounding.seconds(metrics.realSeconds)
        endedBy = end.map {
            switch $0 {
            case .stopped: abortedBy == nil ? .stopped : .thresholdAbort
            case .wallClockLimit: .wallClockLimit
            case .virtualTimeLimit: .virtualTimeLimit
            }
        }
        self.abortedBy = abortedBy?.expression
        self.exitCode = exitCode
        self.digest = digest
        let fleet = Group(RunFigures(metrics), devicesByState: metrics.devicesByState, receiver: receiver)
        devices = fleet.devices
        devicesByState = fleet.devicesByState
        fixes = fleet.fixes
        lostByCause = APIMap(sorting: metrics.fixesLostByCause)
        fixAgeMs = fleet.fixAgeMs
        uploads = fleet.uploads
        timing = TimingBody(deterministic: snapshot.deterministic)
        latencyMs = fleet.latencyMs
        serverLatencyMs = fleet.serverLatencyMs
        fleetHealth = FleetHealthBody(metrics)
        duplicates = fleet.duplicates
        faults = metrics.timeline.map(FaultRun.init)
        drains = metrics.drains.map(Drain.init)
        thresholds = snapshot.thresholds.check(metrics, groups: snapshot.groups).map { result in
            ThresholdBody(
                expression: result.threshold.expression, group: result.threshold.group, passed: result.passed,
                value: result.value)
        }
        thresholdsCount = snapshot.thresholds.counted
        self.serverTruth = serverTruth
        pace = Pace(metrics.pace)
        self.shard = shard == .whole ? nil : ShardBody(index: shard.index, count: shard.count)
        let statesByGroup = devicesByGroup ?? snapshot.devicesByGroup
        groups = APIMap(
            snapshot.groups.enumerated().map { index, group in
                (
                    group,
                    Group(RunFigures(metrics, group: index), devicesByState: statesByGroup[group] ?? [:], receiver: nil)
                )
            })
    }

    /// The report as the file holds it: the API's JSON, one line and a newline.
    package var fileText: String { String(decoding: APIJSON.bytes(self), as: UTF8.self) + "\n" }

    package static let example = RunReportBody(FleetSnapshot())
    package static let component: String? = "RunReport"
    package static let summary: String? =
        "A run's report: what `run --report FILE` writes at the end and `GET /api/v1/report` answers live "
        + "(`ended_by`, `exit_code` and `digest` null until the run is over)."
    package static let notes = [
        "seed": APINote("The run's seed, as text (it may not fit a JSON number exactly)."),
        "virtual_seconds": APINote("Virtual time the run covered, from `started_at`."),
        "real_seconds": APINote("Real seconds the fleet ran."),
        "exit_code": APINote("0 all thresholds met; 99 one that counts failed; null while running."),
        "aborted_by": APINote("The threshold with `abortOnFail` that stopped the run; null when none did."),
        "digest": APINote("The digest of every request the devices sent (see `run`'s output)."),
        "lost_by_cause": APINote("This run's lost fixes by the store error's cause."),
        "timing": APINote(
            "How an answer took its time on the virtual clock at the report's instant, which says what `latency_ms` "
                + "means: `modelled` (100 virtual ms plus injected latency, whatever the server's real time) or "
                + "`as-answered` (the server's real time × the warp). `--timing auto` resolves to one of them "
                + "(modelled once the warp leaves 1)."),
        "latency_ms": APINote("Every upload's virtual ms from send to outcome, as the devices heard it."),
        "server_latency_ms": APINote(
            "Real ms the server took to answer each upload (heard in time or not): its own speed at any warp."),
        "faults": APINote(
            "The faults as they ran, in the order they began: the fleet file's, and those the API began (REST or "
                + "the page), listed and timed alike."),
        "drains": APINote(
            "How long the backlog took to drain after each fault that ended (the timeline's or the API's), in the "
                + "order they ended."),
        "thresholds_count": APINote(
            "Whether a failed threshold fails the run: true when thresholds were given (or with `--strict`); false "
                + "for the defaults, which are only reported."),
        "groups": APINote("The same per group of the fleet file (and groups the API added), by name."),
        "server_truth": APINote(
            "What `run --verify` found of the server's store against what every device was told (its thresholds "
                + "count toward `exit_code`); null without it, live, and in a merged report (`beekon-fleet verify` "
                + "reads the shards' folders)."),
        "shard": APINote("The part of the fleet this run ran (`run --shard`); null for the whole fleet."),
        "merge_state": APINote(
            "What `beekon-fleet report merge` reads to merge the reports of a fleet's shards exactly (its "
                + "metrics with their histograms and history, its thresholds): gzipped JSON in base64, in a form "
                + "of this build's (`format`). Written by `run --report`; null in the live report."),
    ]
}
