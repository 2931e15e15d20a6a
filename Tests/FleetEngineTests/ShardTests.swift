import BeekonDevice
import FleetTestSupport
import Foundation
import Testing

@testable import FleetDescription
@testable import FleetEngine
@testable import FleetRuntime

/// A fleet split into shards (`Shard`, `RunOptions.shard`): each loop runs the devices whose
/// place in their group leaves its index, and together they are the fleet one loop runs, device
/// for device: the same install ids, requests, answers, faults and end states.
@Suite("Shards: a fleet split over loops is the same fleet, device for device")
struct ShardTests {
    @Test(
        "a shard runs the places that leave its index, so every group is split evenly",
        arguments: [
            // (index, count, a group's size, the places it runs)
            (0, 1, 5, [0, 1, 2, 3, 4]),
            (0, 2, 5, [0, 2, 4]),
            (1, 2, 5, [1, 3]),
            (2, 3, 7, [2, 5]),
            (3, 4, 3, []),
            (0, 4, 1, [0]),
        ] as [(Int, Int, Int, [Int])])
    func places(index: Int, count: Int, size: Int, places: [Int]) throws {
        let shard = try Shard(index: index, count: count)
        #expect((0..<size).filter(shard.owns) == places)
        #expect(shard.share(of: size) == places.count)
        #expect(shard.description == "\(index)/\(count)")
    }

    @Test("every place of a group belongs to exactly one shard, and the shares add up to the group")
    func cover() throws {
        for count in 1...7 {
            let shards = try Shard.all(count)
            for size in 0...30 {
                #expect(shards.map { $0.share(of: size) }.reduce(0, +) == size)
                #expect(shards.map { $0.share(of: size) }.max()! - shards.map { $0.share(of: size) }.min()! <= 1)
                for place in 0..<size { #expect(shards.count { $0.owns(place) } == 1) }
            }
        }
    }

    @Test(
        "a shard out of range is refused, saying what was expected",
        arguments: [
            (0, 0, #""0" is out of range; expected a whole number from 1 to 1024 shards"#),
            (0, 1025, #""1025" is out of range; expected a whole number from 1 to 1024 shards"#),
            (2, 2, #""2" is out of range; expected a whole number from 0 to 1"#),
            (-1, 2, #""-1" is out of range; expected a whole number from 0 to 1"#),
        ] as [(Int, Int, String)])
    func refused(index: Int, count: Int, value: String) {
        #expect(throws: NumberProblem.self) { try Shard(index: index, count: count) }
        do {
            _ = try Shard(index: index, count: count)
        } catch {
            #expect(error.description == value)
        }
    }

    @Test(
        "a run takes one loop per 10,000 devices, at most one per core (and 64)",
        arguments: [
            // (devices, cores, loops)
            (1, 2, 1), (100, 8, 1), (10_000, 2, 1), (10_001, 2, 2), (100_000, 2, 2), (100_000, 16, 10),
            (1_000_000, 128, 64), (0, 4, 1), (50_000, 1, 1),
        ] as [(Int, Int, Int)])
    func defaultLoops(devices: Int, cores: Int, loops: Int) {
        #expect(RunOptions.defaultLoops(devices: devices, cores: cores) == loops)
    }

    /// The fleet of `LookaheadTests` (two groups, both platforms, a random start offset, faults
    /// on fractions, a kill), shard `shard`, in its own workspace, on a held clock.
    static func run(
        _ yaml: String, shard: Shard, until minutes: Int64,
        commands: [(minute: Int64, run: (inout FleetLoop) -> Void)] = []
    ) throws -> (fleet: SimulatedFleet, workspace: Workspace) {
        let workspace = try Workspace()
        var options = RunOptions(
            dataDirectory: workspace.data, ingest: "http://ingest.invalid/ingest", routeFolder: workspace.folder.path,
            transferTiming: .deterministic)
        options.shard = shard
        var fleet = try SimulatedFleet(
            fleet: try workspace.fleet(yaml), options: options, network: LookaheadTests.network())
        for command in commands {
            fleet.advance(to: LookaheadTests.start + command.minute * 60_000)
            try fleet.command { command.run(&$0) }
        }
        fleet.advance(to: LookaheadTests.start + minutes * 60_000)
        return (fleet, workspace)
    }

    /// Runs `yaml` whole and in `count` shards, and expects the shards together to be the whole.
    /// `drainWithinRow`: a merged drain ends within a history row of the fleet's. False where the
    /// fleet's backlog is back at a row's boundary instant itself, which counts in the next row,
    /// so the merged drain ends a whole row later (the churn fleet's latency fault does).
    static func expectSameFleet(
        _ yaml: String, shards count: Int, minutes: Int64,
        commands: [(minute: Int64, run: (inout FleetLoop) -> Void)] = [], drainWithinRow: Bool = true
    ) throws {
        let whole = try run(yaml, shard: .whole, until: minutes, commands: commands)
        defer { whole.workspace.cleanUp() }
        var parts: [SimulatedFleet] = []
        for shard in try Shard.all(count) {
            let part = try run(yaml, shard: shard, until: minutes, commands: commands)
            part.workspace.cleanUp()
            let places = part.fleet.engine.slots.map(\.identity.indexInGroup)
            #expect(places.allSatisfy(shard.owns), "shard \(shard) runs \(places)")
            parts.append(part.fleet)
        }
        #expect(whole.fleet.sent.count > 50, "too few requests to compare: \(whole.fleet.sent.count)")
        var lived: [String: LookaheadTests.Lived] = [:]
        var digest = RequestDigest()
        var installIDs: [String: String] = [:]
        var formerInstalls: [String: [String]] = [:]
        for part in parts {
            lived.merge(LookaheadTests.lived(part)) { _, _ in
                Issue.record("a device ran on two shards")
                return LookaheadTests.Lived(sent: [], heard: [], state: "")
            }
            digest.merge(part.engine.metrics.sent)
            for slot in part.engine.slots {
                installIDs[slot.id] = part.engine.roster.installIDs[slot.id]
                formerInstalls[slot.id] = part.engine.roster.formerInstalls[slot.id]
            }
        }
        LookaheadTests.expectSame(lived, LookaheadTests.lived(whole.fleet))
        #expect(digest.count == whole.fleet.engine.metrics.sent.count)
        #expect(digest.text == whole.fleet.engine.metrics.sent.text)
        #expect(installIDs == whole.fleet.engine.roster.installIDs)
        #expect(formerInstalls == whole.fleet.engine.roster.formerInstalls)
        let models = { (fleet: SimulatedFleet) in
            fleet.engine.slots.map { "\($0.id) \($0.identity.model) \($0.identity.osVersion)" }
        }
        #expect(Set(parts.flatMap(models)) == Set(models(whole.fleet)))
        let uploads = parts.map(\.engine.metrics.batchesByOutcome).reduce(into: [:]) { sum, part in
            sum.merge(part, uniquingKeysWith: +)
        }
        #expect(uploads == whole.fleet.engine.metrics.batchesByOutcome)
        var wholeEngine = whole.fleet.engine
        let partMetrics = parts.map { part in
            var engine = part.engine
            return engine.snapshot()
        }
        let wholeMetrics = wholeEngine.snapshot()
        expectSameMetrics(
            FleetMetrics.merged(partMetrics), wholeMetrics, parts: partMetrics, drainWithinRow: drainWithinRow)
        // The same through the JSON a shard's report carries for `report merge` (`RunRecord`).
        let carried = try partMetrics.map {
            try JSONDecoder().decode(FleetMetrics.self, from: JSONEncoder().encode($0))
        }
        expectSameMetrics(FleetMetrics.merged(carried), wholeMetrics, parts: carried, drainWithinRow: drainWithinRow)
        // The snapshots the admin API reads.
        let published = { (engine: inout FleetLoop, metrics: FleetMetrics) in
            engine.recordChanges()
            return engine.fleetSnapshot(metrics: metrics, paused: false, realNanos: 0)
        }
        var partSnapshots: [FleetSnapshot] = []
        for (index, part) in parts.enumerated() {
            var engine = part.engine
            partSnapshots.append(published(&engine, partMetrics[index]))
        }
        var merger = SnapshotMerger(shards: count)
        let merged = merger.merge(partSnapshots)
        expectSameSnapshot(merged, published(&wholeEngine, wholeMetrics))
        // Merged again with nothing new: the same table, no new changes, actions or stream values.
        let again = merger.merge(partSnapshots)
        #expect(again.devices.map(\.id) == merged.devices.map(\.id))
        #expect(again.deviceChanges.last?.number == merged.deviceChanges.last?.number)
        #expect(again.actions.map(\.number) == merged.actions.map(\.number))
        #expect(again.streamEvents.map(\.number) == merged.streamEvents.map(\.number))
    }

    /// The shards' snapshots merged show the whole fleet: every device as one loop shows it (the
    /// file's devices in file order), the actions with the devices each took, every stream value
    /// and a change log whose last word on each device is its listing.
    static func expectSameSnapshot(_ merged: FleetSnapshot, _ whole: FleetSnapshot) {
        let shown = { (device: DeviceSnapshot) in
            [
                device.id, device.group, device.model, device.installID, "\(device.state)", "\(device.pending)",
                "\(device.lastOutcome.map { "\($0)" } ?? "-")", "\(device.latitude ?? 0),\(device.longitude ?? 0)",
                "\(device.uploads.count) \(device.stateHistory.count) \(device.fixes.map { "\($0)" } ?? "-")",
                "\(device.permissionGranted) \(device.online) \(device.deleted) \(device.sync.phase)",
            ].joined(separator: " | ")
        }
        let byID = { (snapshot: FleetSnapshot) in
            Dictionary(uniqueKeysWithValues: snapshot.devices.map { ($0.id, shown($0)) })
        }
        #expect(merged.devices.count == whole.devices.count)
        #expect(byID(merged) == byID(whole))
        #expect(merged.indexByID.count == whole.indexByID.count)
        for (id, index) in merged.indexByID { #expect(merged.devices[index].id == id) }
        let fileDevices = 9
        #expect(merged.devices.prefix(fileDevices).map(\.id) == whole.devices.prefix(fileDevices).map(\.id))
        let action = { (record: ActionRecord) in "\(record.number) \(record.action) \(record.applied) \(record.at)" }
        #expect(merged.actions.map(action) == whole.actions.map(action))
        #expect(!merged.actions.isEmpty)
        let stream = { (record: StreamRecord) in "\(record.at) \(record.device) \(record.value)" }
        #expect(merged.streamEvents.map(stream).sorted() == whole.streamEvents.map(stream).sorted())
        #expect(merged.streamEvents.map(\.number) == Array(1...merged.streamEvents.count))
        var listed: [String: DeviceChange.Listed] = [:]
        for change in merged.deviceChanges { listed[merged.devices[change.slot].id] = change.listed }
        for device in whole.listed {
            #expect(listed[device.id]?.state == device.state, "\(device.id)")
            #expect(listed[device.id]?.pending == device.pending, "\(device.id)")
        }
        #expect(merged.timeline == whole.timeline)
        #expect(merged.virtualNow == whole.virtualNow)
    }

    /// The shards' metrics merged are the whole fleet's: every count, history row and
    /// percentile; the backlog's peak and the drains within their documented bounds.
    static func expectSameMetrics(
        _ merged: FleetMetrics, _ whole: FleetMetrics, parts: [FleetMetrics], drainWithinRow: Bool = true
    ) {
        #expect(merged.virtualNow == whole.virtualNow)
        #expect(merged.devices == whole.devices)
        #expect(merged.devicesByState == whole.devicesByState)
        let account = { (account: FixAccount) in
            "\(account.carriedOver) \(account.handedToStores) \(account.ledger) \(account.unheardAcknowledgements)"
        }
        #expect(account(merged.fixes) == account(whole.fixes))
        #expect(merged.fixesByGroup.map(account) == whole.fixesByGroup.map(account))
        #expect(merged.fixes.ledger.admitted > 100)
        // The peak of the backlog: never below the fleet's, and the shards' peaks added up.
        #expect(merged.fixes.maxPending >= whole.fixes.maxPending)
        #expect(merged.fixes.maxPending == parts.map(\.fixes.maxPending).reduce(0, +))
        for (group, account) in whole.fixesByGroup.enumerated() {
            #expect(merged.fixesByGroup[group].maxPending >= account.maxPending)
        }
        #expect(merged.timeline == whole.timeline)
        #expect(merged.history.rows == whole.history.rows)
        #expect(merged.history.backlog == whole.history.backlog)
        #expect(merged.drains.count == whole.drains.count)
        let rowWidth = merged.history.widthMillis
        for (mine, theirs) in zip(merged.drains, whole.drains) {
            let counts: (FaultDrain) -> [Int] = { [$0.fault, $0.pendingBefore, $0.pendingAtEnd] }
            #expect(counts(mine) == counts(theirs))
            #expect([mine.startedAt, mine.endedAt] == [theirs.startedAt, theirs.endedAt])
            // Read from the history's rows: never before the fleet's (here, within a row of it).
            #expect((mine.drainMillis == nil) == (theirs.drainMillis == nil))
            if let fleet = theirs.drainMillis, let merged = mine.drainMillis {
                #expect(merged >= fleet && (!drainWithinRow || merged < fleet + rowWidth), "\(merged) for \(fleet)")
            }
        }
        #expect(merged.batchesSent == whole.batchesSent)
        #expect(merged.refreshesSent == whole.refreshesSent)
        #expect(merged.refreshesByOutcome == whole.refreshesByOutcome)
        #expect(merged.batchesByOutcome == whole.batchesByOutcome)
        #expect(merged.uploadsByGroup.map { $0.latency.count } == whole.uploadsByGroup.map { $0.latency.count })
        #expect(merged.sent.text == whole.sent.text)
        #expect(merged.answersAfterTimeout == whole.answersAfterTimeout)
        let figures = { (histogram: LatencyHistogram) in
            [Double(histogram.count), histogram.max] + [0.5, 0.9, 0.99].map(histogram.percentile)
                + LatencyHistogram.exactBoundsMillis.map { Double(histogram.count(atOrBelow: $0)) }
        }
        #expect(figures(merged.latency) == figures(whole.latency))
        #expect(figures(merged.fixes.ageAtAcknowledgement) == figures(whole.fixes.ageAtAcknowledgement))
        for (outcome, tally) in whole.uploads.overall {
            #expect(figures(merged.uploads.overall[outcome]?.latency ?? LatencyHistogram()) == figures(tally.latency))
        }
    }

    @Test(
        """
        the shards of a seeded fleet, together, send the same requests, hear the same answers \
        and end in the same states as one loop, with faults on fractions and a kill
        """,
        arguments: [2, 3])
    func sameAsOneLoop(shards: Int) throws {
        try Self.expectSameFleet(LookaheadTests.yaml, shards: shards, minutes: 20)
    }

    @Test(
        "new installs arriving and a day of load make and stop the same devices however the fleet is split",
        arguments: [2, 3])
    func arrivalsAndDaily(shards: Int) throws {
        let hours = (0..<24).map { $0 % 2 == 0 ? "1" : "0.34" }.joined(separator: ", ")
        // The late group's day (made by it from 7 min, as stages do) ramps 3 → 1 → 3 an hour; new
        // walkers arrive 40 an hour for 10 minutes.
        let yaml = LookaheadTests.yaml.replacingOccurrences(
            of: "    start: 7m\n", with: "    start: 7m\n    daily: {utcOffset: \"+10:00\", hours: [\(hours)]}\n"
        ).replacingOccurrences(
            of: "    spread: 1m\n", with: "    spread: 1m\n    arrivals: {perHour: 40, until: 10m}\n")
        #expect(yaml.contains("arrivals") && yaml.contains("daily"))
        try Self.expectSameFleet(yaml, shards: shards, minutes: 20)
    }

    @Test(
        """
        stages, admin spawns and admin actions on a fraction make and pick the same devices \
        however the fleet is split
        """,
        arguments: [2, 3])
    func laterDevices(shards: Int) throws {
        let yaml = LookaheadTests.yaml.replacingOccurrences(
            of: "    start: 7m\n",
            with: "    start: 7m\n    stages:\n      - {for: 4m, devices: 5}\n      - {for: 3m, devices: 2}\n")
        #expect(yaml != LookaheadTests.yaml)
        try Self.expectSameFleet(
            yaml, shards: shards, minutes: 20,
            commands: [
                (2, { _ = try? $0.spawn(SpawnRequest(template: .group("walkers"), count: 4)) }),
                (4, { _ = try? $0.act(.revokePermission, on: .fraction(0.5)) }),
                (8, { _ = try? $0.act(.grantPermission, on: .fraction(0.7, seed: 9)) }),
                (13, { try? $0.setFleetDevices(7) }),
            ])
    }

    @Test(
        """
        a group's flapping and a flapping action drop and hand over the same devices at the same \
        instants however the fleet is split
        """,
        arguments: [2, 3])
    func flapping(shards: Int) throws {
        let flapping = "    flapping: {meanOnline: 2m, meanOffline: 20s, handover: 0.5}"
        let yaml =
            LookaheadTests.yaml.replacingOccurrences(of: "    spread: 1m\n", with: "    spread: 1m\n" + flapping + "\n")
            + "\n"
                + """
                  - {at: 6m, for: 8m, select: {fraction: 0.5}, action: flapping, params: {meanOnline: 1m, handover: 0}}

                """
        #expect(yaml.contains("flapping: {"))
        let whole = try Self.run(yaml, shard: .whole, until: 20)
        defer { whole.workspace.cleanUp() }
        #expect(whole.fleet.engine.metrics.networkDrops > 0 && whole.fleet.engine.metrics.handovers > 0)
        try Self.expectSameFleet(yaml, shards: shards, minutes: 20, drainWithinRow: false)
    }

    @Test(
        """
        a group's oemKills and an oemKills action kill the same devices at the same instants, and \
        a working-set bucket defers the same restarts as long, however the fleet is split
        """,
        arguments: [2, 3])
    func oemKills(shards: Int) throws {
        let kills = "    oemKills: {perDay: 24}\n    standbyBucket: workingSet"
        let yaml =
            LookaheadTests.yaml.replacingOccurrences(of: "    spread: 1m\n", with: "    spread: 1m\n" + kills + "\n")
            + "\n"
                + """
                  - {at: 8m, for: 10m, select: {group: late}, action: oemKills, params: {perDay: 24}}

                """
        let whole = try Self.run(yaml, shard: .whole, until: 20)
        defer { whole.workspace.cleanUp() }
        #expect(whole.fleet.engine.metrics.oemKills > 0)
        try Self.expectSameFleet(yaml, shards: shards, minutes: 20, drainWithinRow: false)
    }

    @Test("a doze action dozes the same devices at the same instants however the fleet is split", arguments: [2, 3])
    func doze(shards: Int) throws {
        // The late group's phones barely move (1 cm/s): they stand still for Doze.
        let yaml =
            LookaheadTests.yaml.replacingOccurrences(
                of: "    pace: walk\n    start: 7m\n", with: "    pace: 0.01\n    start: 7m\n")
            + "\n"
                + """
                  - {at: 0s, select: all, action: doze, params: {after: 1m, window: 20s}}

                """
        #expect(yaml.contains("pace: 0.01"))
        let whole = try Self.run(yaml, shard: .whole, until: 20)
        defer { whole.workspace.cleanUp() }
        #expect(whole.fleet.engine.metrics.dozeIdles == 3)
        try Self.expectSameFleet(yaml, shards: shards, minutes: 20, drainWithinRow: false)
    }

    @Test(
        """
        reinstalls and upgrades, the timeline's and a group's churn, reinstall and upgrade the same \
        devices at the same instants with the same install ids however the fleet is split
        """,
        arguments: [2, 3])
    func churn(shards: Int) throws {
        let churn = #"    churn: {reinstallsPerDay: 24, upgrade: {sdkVersion: "0.2.0", at: 5m, over: 10m}}"#
        let yaml =
            LookaheadTests.yaml.replacingOccurrences(of: "    spread: 1m\n", with: "    spread: 1m\n" + churn + "\n")
            + "\n"
                + """
                  - {at: 10m, select: {fraction: 0.5}, action: reinstall, params: {openAfterSeconds: 60}}
                  - {at: 16m, select: {group: late}, action: upgrade, params: {sdkVersion: "0.3.0"}}

                """
        #expect(yaml.contains("churn:"))
        let whole = try Self.run(yaml, shard: .whole, until: 20)
        defer { whole.workspace.cleanUp() }
        #expect(!whole.fleet.engine.roster.formerInstalls.isEmpty)
        try Self.expectSameFleet(yaml, shards: shards, minutes: 20, drainWithinRow: false)
    }
}
