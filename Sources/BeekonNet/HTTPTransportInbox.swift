import Foundation
import Synchronization

/// What callers and the transport thread share: requests handed over, the stop flag, and the
/// multi handle's wake-up call. Everything else belongs to the transport thread alone.
final class HTTPTransportInbox: Sendable {
    private struct State {
        var submitted: [HTTPPendingRequest] = []
        var cancelled: [Int] = []
        var stopping = false
        var loopThread: pthread_t?
    }

    let multi: CurlMulti
    private let state = Mutex(State())
    // Signalled once when the transport thread has cancelled everything and freed its handles.
    private let exited = DispatchSemaphore(value: 0)

    init(multi: CurlMulti) {
        self.multi = multi
    }

    /// Queues `pending` and wakes the thread; false once the transport is stopping.
    ///
    /// Only the first request into an empty queue wakes the thread: it takes the whole queue at
    /// once, so a burst of submissions costs one wake-up, not one write to curl's socket each.
    func submit(_ pending: HTTPPendingRequest) -> Bool {
        let (accepted, wake) = state.withLock { state in
            guard !state.stopping else { return (false, false) }
            state.submitted.append(pending)
            return (true, state.submitted.count == 1)
        }
        if wake { multi.wakeup() }
        return accepted
    }

    /// Asks the thread to cancel the request submitted with `id`; returns at once.
    func cancel(_ id: Int) {
        let wake = state.withLock { state in
            state.cancelled.append(id)
            return state.submitted.isEmpty && state.cancelled.count == 1
        }
        if wake { multi.wakeup() }
    }

    /// Asks the thread to cancel everything and exit; returns at once.
    func stop() {
        state.withLock { $0.stopping = true }
        multi.wakeup()
    }

    /// Blocks until the thread has exited, unless called on that thread (from a completion),
    /// where waiting would never end.
    func waitForExit() {
        let onLoopThread = state.withLock { state in
            state.loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        }
        guard !onLoopThread else { return }
        exited.wait()
        // Let any other caller of shutdown() through too.
        exited.signal()
    }

    // MARK: Called on the transport thread.

    func loopStarted() {
        state.withLock { $0.loopThread = pthread_self() }
    }

    /// Everything submitted and cancelled since the last call, and whether to stop.
    func take() -> (submitted: [HTTPPendingRequest], cancelled: [Int], stopping: Bool) {
        state.withLock { state in
            defer {
                state.submitted = []
                state.cancelled = []
            }
            return (state.submitted, state.cancelled, state.stopping)
        }
    }

    func loopExited() {
        exited.signal()
    }
}
