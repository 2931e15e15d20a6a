import FleetEngine
import FleetRuntime
import Foundation

/// Runs blocking work (a fleet run, a child process, a poll with sleeps) on a thread of its own
/// and awaits it. Swift Testing runs tests on the cooperative pool, which has one thread per core
/// (two here): a test that blocks one for seconds stalls every other test's awaits, and tests of
/// connection reuse and timeouts then fail for reasons of their own. `body` records no issues
/// (it runs outside the test's task); the caller checks what it returns.
package func offPool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

extension FleetRuntime {
    /// Runs the fleet on a thread of its own; the semaphore is signalled when the run ends.
    package func runOnThread() -> DispatchSemaphore {
        let finished = DispatchSemaphore(value: 0)
        Thread {
            _ = try? self.run(progressEverySeconds: 3600)
            finished.signal()
        }.start()
        return finished
    }

    /// Blocks (at most a real minute, polling) until `condition` holds for the published
    /// snapshot; nil when it never did. Call it off the pool.
    package func waitFor(_ condition: (FleetSnapshot) -> Bool) -> FleetSnapshot? {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let snapshot = snapshot
            if condition(snapshot) { return snapshot }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return nil
    }
}
