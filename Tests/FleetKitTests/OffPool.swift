import Foundation

/// Runs blocking work (a fleet run, a child process, a poll with sleeps) on a thread of its own
/// and awaits it. Swift Testing runs tests on the cooperative pool, which has one thread per core
/// (two here): a test that blocks one for seconds stalls every other test's awaits, and tests of
/// connection reuse and timeouts then fail for reasons of their own. `body` records no issues
/// (it runs outside the test's task); the caller checks what it returns.
func offPool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
