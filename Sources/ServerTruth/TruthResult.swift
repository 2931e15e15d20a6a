import BeekonDevice
import BeekonStore
import FleetDescription
import FleetEngine
import Foundation

/// What `verify` found: the run's figures and each group's, and the first few of each problem.
public struct TruthResult: Sendable {
    /// A problem found, for a person to look up in the server's store.
    public struct Example: Sendable, Hashable {
        public var installID: String
        public var fixID: String
        /// The batch it was told in (nil for a foreign row, or when no told batch holds it).
        public var batchID: String?
        /// When its device was told, on the fleet's virtual clock (RFC 3339; nil as for `batchID`).
        public var toldAt: String?
        /// How many rows of it the server holds.
        public var stored: Int
        /// Its first row's line in the rows given (foreign rows only).
        public var line: Int?

        public init(
            installID: String, fixID: String, batchID: String? = nil, toldAt: String? = nil, stored: Int,
            line: Int? = nil
        ) {
            self.installID = installID
            self.fixID = fixID
            self.batchID = batchID
            self.toldAt = toldAt
            self.stored = stored
            self.line = line
        }
    }

    /// What a problem's examples are listed under: a fix category, or the server's own.
    public enum Problem: String, Sendable, Hashable, CaseIterable {
        case lost, duplicates
        case storedThoughRejected = "stored_though_rejected"
        case misattributed, foreign
    }

    public var devices: Int
    /// Devices whose stores predate told records (their rows counted `unrecorded`).
    public var devicesWithoutTold: Int
    public var serverRows: Int
    public var total: TruthCounts
    /// By group name, in the fleet's order.
    public var groups: [(name: String, counts: TruthCounts)]
    public var examples: [Problem: [Example]]

    public init(
        devices: Int, devicesWithoutTold: Int, serverRows: Int, total: TruthCounts,
        groups: [(name: String, counts: TruthCounts)], examples: [Problem: [Example]]
    ) {
        self.devices = devices
        self.devicesWithoutTold = devicesWithoutTold
        self.serverRows = serverRows
        self.total = total
        self.groups = groups
        self.examples = examples
    }

    /// Each threshold against these figures, a group's against that group's.
    public func check(_ thresholds: [Threshold]) -> [ThresholdResult] {
        thresholds.map { threshold in
            var value: Double?
            if case .server(let figure, let share) = threshold.metric {
                let counts = threshold.group.map { name in groups.first { $0.name == name }?.counts } ?? total
                value = counts?.value(figure, share, serverRows: serverRows)
            }
            return ThresholdResult(threshold: threshold, value: value)
        }
    }
}

extension TruthJoin {
    /// The figures, once every row is in; `records` reads a device's store again for the batch
    /// and instant of each example (nil when it cannot).
    public func result(records: (VerifiedDevice) -> StoreRecords?) -> TruthResult {
        var total = TruthCounts()
        var byGroup = Array(repeating: TruthCounts(), count: groups.count)
        var picked: [TruthResult.Problem: [(entry: Int, stored: Int)]] = [:]
        func pick(_ problem: TruthResult.Problem, _ entry: Int, _ stored: Int) {
            if picked[problem, default: []].count < exampleLimit {
                picked[problem, default: []].append((entry, stored))
            }
        }
        for (entry, fix) in index.entries.enumerated() {
            let rows = Int(stored[entry])
            let verdict = FixVerdict(fix.side, stored: rows > 0)
            let group = devices[Int(fix.device)].group
            total.fixes[verdict, default: 0] += 1
            byGroup[group].fixes[verdict, default: 0] += 1
            switch verdict {
            case .lost: pick(.lost, entry, rows)
            case .storedThoughRejected: pick(.storedThoughRejected, entry, rows)
            default: break
            }
            if rows > 1 {
                total.duplicates += 1
                total.duplicateRows += rows - 1
                byGroup[group].duplicates += 1
                byGroup[group].duplicateRows += rows - 1
                pick(.duplicates, entry, rows)
            }
            if misattributed[entry] {
                total.misattributed += 1
                byGroup[group].misattributed += 1
                pick(.misattributed, entry, rows)
            }
        }
        let sortedForeign = foreignIDs.sorted()
        var foreignStored: [UUIDv7: Int] = [:]
        var run = 0
        for (position, id) in sortedForeign.enumerated() {
            run += 1
            if position + 1 == sortedForeign.count || sortedForeign[position + 1] != id {
                if run > 1 {
                    total.duplicates += 1
                    total.duplicateRows += run - 1
                }
                if foreignRows.contains(where: { $0.fixID == id }) { foreignStored[id] = run }
                run = 0
            }
        }
        total.foreign = foreignIDs.count
        total.unrecorded = unrecorded
        var examples: [TruthResult.Problem: [TruthResult.Example]] = [:]
        var told: [UInt32: StoreRecords?] = [:]
        for problem in TruthResult.Problem.allCases where problem != .foreign {
            examples[problem] = picked[problem, default: []].map { entry, rows in
                let fix = index.entries[entry]
                let device = devices[Int(fix.device)]
                if told[fix.device] == nil { told[fix.device] = records(device) }
                let id = UUIDv7(high: fix.high, low: fix.low)
                // The last batch that told it, as the index keeps the last word.
                let batch = told[fix.device]??.told.last(where: { $0.fixIDs.contains(id) })
                return TruthResult.Example(
                    installID: device.installID.text, fixID: id.text, batchID: batch?.batchID.text,
                    toldAt: batch.map { Timestamp.text(unixMillis: $0.at) },
                    stored: rows)
            }
        }
        examples[.foreign] = foreignRows.map { row in
            let install: String
            switch row.install {
            case .empty: install = ""
            case .id(let id): install = id.text
            case .other(let text): install = text
            }
            return TruthResult.Example(
                installID: install, fixID: row.fixID.text, stored: foreignStored[row.fixID] ?? 1, line: row.line)
        }
        return TruthResult(
            devices: devices.count { !$0.former }, devicesWithoutTold: devices.filter(\.predatesTold).count,
            serverRows: serverRows,
            total: total, groups: zip(groups, byGroup).map { ($0, $1) }, examples: examples)
    }
}
