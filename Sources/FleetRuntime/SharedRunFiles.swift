import FleetEngine
import Synchronization

/// The data folder's files that speak for the whole fleet, written for every loop of the run:
/// `devices.json` (every loop's install ids), `installs.json` (those reinstalls replaced) and
/// `clock.json` (the furthest any loop recorded, stopped once every loop has stopped), so a
/// resumed run finds every store and starts after everything any loop stamped.
final class SharedRunFiles: Sendable {
    private struct State {
        /// Each loop's install ids, once it has said them (every loop does at its start).
        var installIDs: [[String: String]?]
        /// Each loop's former installs, once it has reinstalled a device.
        var formerInstalls: [[String: [String]]]
        var clocks: [ClockRecord?]
    }

    private let directory: String
    private let state: Mutex<State>

    init(directory: String, loops: Int) {
        self.directory = directory
        state = Mutex(
            State(
                installIDs: Array(repeating: nil, count: loops), formerInstalls: Array(repeating: [:], count: loops),
                clocks: Array(repeating: nil, count: loops)))
    }

    /// Loop `loop`'s install ids; writes every loop's once every loop has said its own (so the
    /// start, where each loop says them, writes the file once, before any clock starts). Answers
    /// the problem when the write fails.
    func recordInstallIDs(_ map: [String: String], loop: Int) -> String? {
        state.withLock { state in
            state.installIDs[loop] = map
            guard state.installIDs.count > 1 else { return RunFiles.writeInstallIDs(map, directory) }
            let said = state.installIDs.compactMap { $0 }
            guard said.count == state.installIDs.count else { return nil }
            var all: [String: String] = [:]
            for ids in said { all.merge(ids) { first, _ in first } }
            return RunFiles.writeInstallIDs(all, directory)
        }
    }

    /// Loop `loop`'s former installs (each loop's devices are its own); writes every loop's.
    /// Answers the problem when the write fails.
    func recordFormerInstalls(_ map: [String: [String]], loop: Int) -> String? {
        state.withLock { state in
            state.formerInstalls[loop] = map
            var all: [String: [String]] = [:]
            for ids in state.formerInstalls { all.merge(ids) { first, _ in first } }
            return RunFiles.writeFormerInstalls(all, directory)
        }
    }

    /// Loop `loop`'s clock record; writes the fleet's. Answers the problem when the write fails.
    func recordClock(_ record: ClockRecord, loop: Int) -> String? {
        state.withLock { state in
            state.clocks[loop] = record
            let records = state.clocks.compactMap { $0 }
            let furthest = records.map(\.reachedMillis).max() ?? record.reachedMillis
            let stopped = records.count == state.clocks.count && records.allSatisfy(\.stopped)
            return RunFiles.writeClock(
                ClockRecord(reachedMillis: furthest, warp: record.warp, stopped: stopped), directory)
        }
    }
}
