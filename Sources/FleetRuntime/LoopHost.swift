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
