import BeekonNet
import FleetEngine
import Foundation
import Synchronization

/// What one loop of a run shares with other threads: its inbox (transfer completions, control
/// commands, a stop request), the semaphore that wakes it, and the snapshot it last published.
/// A run has one per loop (`FleetRuntime`); the loop's thread alone touches its driver.
final class LoopHost: Sendable {
    /// Work that crosses threads: transfer completions, control commands and a stop request.
    struct Inbox {
        /// Real requests that ended: transfer number and result.
        var completions: [(number: Int, result: HTTPResult)] = []
        var commands: [FleetRuntime.Command] = []
        var stopRequested = false
        /// The run is over: commands are refused at once.
        var finished = false
    }

    let inbox = Mutex(Inbox())
    let wakeup = DispatchSemaphore(value: 0)
    /// The loop's last snapshot (its shard's devices, metrics and logs).
    let published = Mutex(FleetSnapshot())

    /// Asks the loop to stop at its next step.
    func stop() {
        inbox.withLock { $0.stopRequested = true }
        wakeup.signal()
    }

    /// Queues a command for the loop and wakes it; refuses it at once when the loop is over.
    func submit(_ command: FleetRuntime.Command) {
        let accepted = inbox.withLock { box in
            guard !box.finished else { return false }
            box.commands.append(command)
            return true
        }
        if accepted { wakeup.signal() } else { command.refuse() }
    }

    /// A real request's end, from the transport's thread.
    func completed(_ number: Int, _ result: HTTPResult) {
        inbox.withLock { $0.completions.append((number, result)) }
        wakeup.signal()
    }

    /// Takes the completions that arrived, and says whether commands wait and a stop was asked for.
    func takeInbox() -> (completions: [(number: Int, result: HTTPResult)], commandsWaiting: Bool, stopRequested: Bool) {
        inbox.withLock { box in
            let taken = (box.completions, !box.commands.isEmpty, box.stopRequested)
            box.completions = []
            return taken
        }
    }

    /// Takes the commands that arrived.
    func takeCommands() -> [FleetRuntime.Command] {
        inbox.withLock { box in
            defer { box.commands = [] }
            return box.commands
        }
    }

    /// The loop is over: commands that wait, and any that come, are refused.
    func finish() {
        let refused = inbox.withLock { box in
            box.finished = true
            defer { box.commands = [] }
            return box.commands
        }
        for command in refused { command.refuse() }
    }
}

/// The data folder's files that speak for the whole fleet, written for every loop of the run:
/// `devices.json` (every loop's install ids) and `clock.json` (the furthest any loop recorded,
/// stopped once every loop has stopped), so a resumed run finds every store and starts after
/// everything any loop stamped.
final class SharedRunFiles: Sendable {
    private struct State {
        /// Each loop's install ids, once it has said them (every loop does at its start).
        var installIDs: [[String: String]?]
        var clocks: [ClockRecord?]
    }

    private let directory: String
    private let state: Mutex<State>

    init(directory: String, loops: Int) {
        self.directory = directory
        state = Mutex(
            State(installIDs: Array(repeating: nil, count: loops), clocks: Array(repeating: nil, count: loops)))
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
