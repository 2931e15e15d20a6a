/// What the loop publishes to the admin API besides its metrics: the devices as last recorded
/// (the device table, the counts by state, the change log the `devices` live event reads), and the
/// recent actions and notable stream values, each numbered.
///
/// Devices are recorded only when noted (`note`): publishing costs what happened, not a walk over
/// every device.
struct Publication {
    /// Recent admin and timeline actions, numbered (the `action` live event).
    private(set) var actions = RecentRing<ActionRecord>(capacity: 100)
    /// Recent notable SDK stream values, numbered (the `stream` live event).
    private(set) var streams = RecentRing<StreamRecord>(capacity: 100)
    /// Each device's snapshot as last recorded.
    private(set) var table = DeviceTable()
    /// Devices by the state they were last recorded in.
    private(set) var stateCounts: [DeviceState: Int] = [:]
    /// Each listing change, numbered (see `DeviceChange`).
    private(set) var changes = DeviceChangeLog()
    /// The last change's number.
    private(set) var changesRecorded: UInt64 = 0
    /// Devices noted since the last recording, in the order noted, each once.
    private(set) var noted: [Int] = []
    /// Per device: noted since the last recording; the state it is counted in (nil while deleted
    /// or before its first recording); what its last change said.
    private var devices: [(noted: Bool, counted: DeviceState?, listed: DeviceChange.Listed?)] = []

    /// Numbers and keeps an action.
    mutating func log(_ record: ActionRecord) {
        var numbered = record
        numbered.number = UInt64(actions.appended + 1)
        actions.append(numbered)
    }

    /// Numbers and keeps a notable stream value.
    mutating func log(_ record: StreamRecord) {
        var numbered = record
        numbered.number = streams.appended + 1
        streams.append(numbered)
    }

    /// Something `slot` shows may have changed: the next recording looks at it.
    mutating func note(_ slot: Int) {
        grow(to: slot + 1)
        guard !devices[slot].noted else { return }
        devices[slot].noted = true
        noted.append(slot)
    }

    /// Brings the table up to `count` devices and records every noted one: `snapshot(slot)` is
    /// its new row; `listing(slot)` its state and listing (nil for a deleted device), counted and
    /// logged as a change when it differs from the last recorded. Devices new to the table are
    /// added in order, whatever order they were noted in. `keep` bounds the change log (trimmed
    /// by whole chunks once it holds twice that).
    mutating func record(
        count: Int, keep: Int, snapshot: (Int) -> DeviceSnapshot, listing: (Int) -> DeviceChange.Listed?
    ) {
        let made = table.count
        while table.count < count {
            table.set(table.count, snapshot(table.count))
            note(table.count - 1)
        }
        for slot in noted {
            devices[slot].noted = false
            if slot < made { table.set(slot, snapshot(slot)) }
            let listed = listing(slot)
            if listed?.state != devices[slot].counted {
                if let counted = devices[slot].counted { stateCounts[counted, default: 0] -= 1 }
                if let state = listed?.state { stateCounts[state, default: 0] += 1 }
                devices[slot].counted = listed?.state
            }
            guard let listed, listed != devices[slot].listed else { continue }
            devices[slot].listed = listed
            changesRecorded += 1
            changes.append(DeviceChange(number: changesRecorded, slot: slot, listed: listed))
        }
        noted.removeAll(keepingCapacity: true)
        if changes.count > 2 * keep { changes.dropOldest(keeping: keep) }
    }

    /// Forgets what was noted without recording it (tests).
    mutating func dropNoted() {
        for slot in noted { devices[slot].noted = false }
        noted = []
    }

    private mutating func grow(to count: Int) {
        while devices.count < count { devices.append((false, nil, nil)) }
    }
}
