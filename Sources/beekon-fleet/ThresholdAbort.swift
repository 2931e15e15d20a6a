import FleetDescription
import FleetEngine
import FleetRuntime
import Foundation

/// k6's `abortOnFail`: every real second, the thresholds that have it are checked against the
/// published figures; the first that fails on a measured value (nothing measured yet is no
/// failure here), once its `delayAbortEval` of virtual time has passed, stops the run.
final class ThresholdAbort: @unchecked Sendable {  // `aborted` is read and set under `lock`; `timer` set once in init
    /// The threshold that stopped the run, and the virtual instant it failed at.
    struct Abort {
        var result: ThresholdResult
        var at: Int64
    }

    private let lock = NSLock()
    private var aborted: Abort?
    private var timer: DispatchSourceTimer?

    init(runtime: FleetRuntime, thresholds: [Threshold]) {
        guard !thresholds.isEmpty else { return }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [weak self] in
            let snapshot = runtime.snapshot
            let elapsed = snapshot.virtualNow - snapshot.startedAt
            let failed = ThresholdResult.check(thresholds, against: snapshot.metrics, groups: snapshot.groups).first {
                $0.value != nil && !$0.passed && elapsed >= $0.threshold.delayAbortEvalMillis
            }
            guard let failed, let self else { return }
            self.lock.withLock {
                if self.aborted == nil { self.aborted = Abort(result: failed, at: snapshot.virtualNow) }
            }
            runtime.stop()
        }
        timer.resume()
        self.timer = timer
    }

    /// Stops checking; the abort, if one happened.
    @discardableResult
    func cancel() -> Abort? {
        timer?.cancel()
        return lock.withLock { aborted }
    }
}
