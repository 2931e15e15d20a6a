/// The snapshots the loops of one process publish, each running one shard of the fleet
/// (`Shard`), as the one fleet the admin API, the report and `/metrics` show.
///
/// It keeps what must stay stable from one merge to the next: where each shard's device sits in
/// the fleet's table (the file's devices in file order, group by group and place by place, then
/// later devices as they appear), and the fleet's own numbering of the live logs (device changes,
/// SDK stream values, actions), which readers follow past the last number they saw. A merge costs
/// the changes since the last one, and a reference comparison per device.
package struct SnapshotMerger {
    /// The fleet's table: each shard's devices at their place in the fleet.
    private var table = DeviceTable()
    /// Where each shard's slot sits in `table`, by shard.
    private var tableIndex: [[Int]]
    private var indexByID: [String: Int] = [:]
    /// The fleet's device changes, numbered anew, and the last number taken from each shard.
    private var changes = DeviceChangeLog()
    private var changeNumber: UInt64 = 0
    private var changesTaken: [UInt64]
    /// The fleet's notable stream values, numbered anew, and the last number taken from each shard.
    private var streams = RecentRing<StreamRecord>(capacity: 100)
    private var streamsTaken: [Int]
    /// Actions, once every shard has logged them: each shard logs the same actions in the same
    /// order (timeline faults at their instants, admin actions as every shard takes them).
    private var actions = RecentRing<ActionRecord>(capacity: 100)
    private var actionsMerged: UInt64 = 0

    /// A merger for a fleet of `shards` shards.
    package init(shards: Int) {
        tableIndex = Array(repeating: [], count: shards)
        changesTaken = Array(repeating: 0, count: shards)
        streamsTaken = Array(repeating: 0, count: shards)
    }

    /// The shards' snapshots (by shard index) as one fleet's. What every shard shows alike (the
    /// fleet's name, groups, thresholds, targets) is the first's; the clock is where the slowest
    /// shard stands; the driver sets warp, pause and sequence.
    package mutating func merge(_ parts: [FleetSnapshot]) -> FleetSnapshot {
        precondition(parts.count == tableIndex.count, "\(parts.count) snapshots for \(tableIndex.count) shards")
        var whole = parts[0]
        whole.virtualNow = parts.map(\.virtualNow).min()!
        whole.realSecond = parts.map(\.realSecond).max()!
        whole.metrics = FleetMetrics.merged(parts.map(\.metrics))
        whole.timeline = Self.timeline(parts)
        placeNewDevices(parts)
        for (shard, part) in parts.enumerated() {
            for slot in part.devices.indices {
                let box = part.devices.box(slot)
                let index = tableIndex[shard][slot]
                if table.box(index) !== box { table.setBox(index, box) }
            }
        }
        table.now = whole.virtualNow
        whole.devices = table
        whole.indexByID = indexByID
        takeChanges(parts)
        whole.deviceChanges = changes
        takeStreams(parts)
        whole.streamEvents = streams.elements
        takeActions(parts)
        whole.actions = actions.elements
        return whole
    }

    /// Devices a shard made since the last merge join the table, in the fleet's order: by group,
    /// then by place in it.
    private mutating func placeNewDevices(_ parts: [FleetSnapshot]) {
        let groupIndex = Dictionary(
            parts[0].groups.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var new: [(shard: Int, slot: Int, group: Int, place: Int)] = []
        for (shard, part) in parts.enumerated() where part.devices.count > tableIndex[shard].count {
            for slot in tableIndex[shard].count..<part.devices.count {
                let device = part.devices.box(slot).device
                new.append((shard, slot, groupIndex[device.group] ?? .max, FleetLoop.place(of: device.id)))
            }
        }
        new.sort { ($0.group, $0.place, $0.shard, $0.slot) < ($1.group, $1.place, $1.shard, $1.slot) }
        // A shard's new slots map to table places in slot order, which the fleet's order need not
        // follow (a device made in an earlier group after one in a later group).
        var placed: [[Int: Int]] = Array(repeating: [:], count: parts.count)
        for device in new {
            let index = table.count
            let box = parts[device.shard].devices.box(device.slot)
            table.setBox(index, box)
            placed[device.shard][device.slot] = index
            indexByID[box.device.id] = index
        }
        for (shard, indices) in placed.enumerated() {
            for slot in indices.keys.sorted() { tableIndex[shard].append(indices[slot]!) }
        }
    }

    /// The shards' device changes since the last merge, at the devices' places in the fleet,
    /// numbered on from the fleet's last. A shard whose log dropped changes not yet taken leaves
    /// a gap in the numbers, so a reader knows its list may be stale.
    private mutating func takeChanges(_ parts: [FleetSnapshot]) {
        for (shard, part) in parts.enumerated() {
            if let first = part.deviceChanges.first?.number, first > changesTaken[shard] + 1 {
                changes = DeviceChangeLog()
                changeNumber += 1
            }
            for change in part.deviceChanges.changes(after: changesTaken[shard]) {
                changeNumber += 1
                changes.append(
                    DeviceChange(number: changeNumber, slot: tableIndex[shard][change.slot], listed: change.listed))
                changesTaken[shard] = change.number
            }
        }
        let keep = 1024 + 4 * table.count
        if changes.count > 2 * keep { changes.dropOldest(keeping: keep) }
    }

    /// The shards' notable stream values since the last merge, in the order they happened,
    /// numbered on from the fleet's last.
    private mutating func takeStreams(_ parts: [FleetSnapshot]) {
        var new: [StreamRecord] = []
        for (shard, part) in parts.enumerated() {
            for record in part.streamEvents where record.number > streamsTaken[shard] {
                new.append(record)
                streamsTaken[shard] = record.number
            }
        }
        new.sort { ($0.at, $0.device) < ($1.at, $1.device) }
        for var record in new {
            record.number = streams.appended + 1
            streams.append(record)
        }
    }

    /// The actions every shard has logged since the last merge: the devices each took, added up.
    private mutating func takeActions(_ parts: [FleetSnapshot]) {
        let everywhere = parts.map { $0.actions.last?.number ?? 0 }.min()!
        guard everywhere > actionsMerged else { return }
        for number in (actionsMerged + 1)...everywhere {
            let records = parts.compactMap { part in part.actions.first { $0.number == number } }
            guard var record = records.first else { continue }
            record.applied = records.filter { $0.action == record.action && $0.source == record.source }
                .reduce(0) { $0 + $1.applied }
            record.at = records.map(\.at).min()!
            actions.append(record)
        }
        actionsMerged = everywhere
    }

    /// The fault timeline: the devices each fault took on every shard, added up.
    private static func timeline(_ parts: [FleetSnapshot]) -> [TimelineFaultView] {
        var timeline = parts[0].timeline
        for index in timeline.indices {
            let applied = parts.compactMap { $0.timeline.indices.contains(index) ? $0.timeline[index].applied : nil }
            timeline[index].applied = applied.isEmpty ? nil : applied.reduce(0, +)
        }
        return timeline
    }
}
