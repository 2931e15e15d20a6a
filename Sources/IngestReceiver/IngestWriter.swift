import Foundation
internal import SQLite
import Synchronization

/// Group commit: the one owner of the receiver's database connection, on a `Thread` of its own
/// (never the cooperative pool: `sqlite3_step` and the fsync of `COMMIT` block). Validated
/// uploads are queued with `submit`; the thread takes everything queued (up to `maxGroupUploads`
/// or `maxGroupBytes`), stores it in ONE transaction, commits once (`synchronous=FULL`, so one
/// fsync for the whole group) and only then hands each upload its outcome.
///
/// If the group's transaction fails, it is rolled back and its uploads are stored again one by
/// one, each in its own transaction, so a bad upload gets exactly the error it would have got
/// alone and the others are stored and answered as usual.
///
/// Sendable: the queue is in a `Mutex`, the signals are `DispatchSemaphore`s, and the database is
/// touched only by the writer thread (see `Owned`).
final class IngestWriter: Sendable {
    /// One validated upload waiting for the commit.
    struct Job: Sendable {
        var batch: IngestBatch
        var receivedAt: Int64
        /// Bytes counted toward the group's size cap (the request body's size).
        var bytes: Int
        /// Called on the writer thread once the upload's fate is known: its outcome after the
        /// commit, `.failure` with the storage error, or nil when the writer had stopped.
        var completion: @Sendable (Result<IngestDatabase.Outcome, SQLiteError>?) -> Void
    }

    private struct Queue {
        var jobs: [Job] = []
        var closed = false
    }

    /// The database, moved to the writer thread.
    private final class Owned: @unchecked Sendable {  // only the writer thread touches it after init hands it over
        var database: IngestDatabase?
        init(_ database: IngestDatabase) { self.database = database }
    }

    /// At most this many uploads per transaction, so one commit's latency stays bounded.
    static let maxGroupUploads = 512
    /// At most this many request-body bytes per transaction (a single larger upload still goes, alone).
    static let maxGroupBytes = 8 << 20

    private let queue = Mutex(Queue())
    /// Signalled once per `submit` and by `close`; the writer waits on it when the queue is empty.
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled once when the writer thread has finished everything and closed the database.
    private let finished = DispatchSemaphore(value: 0)
    private let owned: Owned
    /// Groups committed (for tests and the docs' claim of "one fsync per group").
    let groupsCommitted = Atomic<Int>(0)

    init(database: sending IngestDatabase) {
        owned = Owned(database)
        let thread = Thread { [self] in run() }
        thread.name = "beekon-ingest-writer"
        thread.start()
    }

    /// Queues `job`; false (and the job is not queued) once the writer is closing.
    func submit(_ job: Job) -> Bool {
        let queued = queue.withLock { queue -> Bool in
            guard !queue.closed else { return false }
            queue.jobs.append(job)
            return true
        }
        if queued { wake.signal() }
        return queued
    }

    /// Refuses new jobs, stores and completes every job already queued, closes the database and
    /// returns once the writer thread is done. Idempotent.
    func close() {
        let first = queue.withLock { queue -> Bool in
            defer { queue.closed = true }
            return !queue.closed
        }
        guard first else { return }
        wake.signal()
        finished.wait()
        finished.signal()  // Lets a concurrent second caller through too.
    }

    // MARK: The writer thread

    private func run() {
        while true {
            let (group, closed) = queue.withLock { queue -> ([Job], Bool) in
                var count = 0
                var bytes = 0
                for job in queue.jobs {
                    if count == Self.maxGroupUploads || (count > 0 && bytes + job.bytes > Self.maxGroupBytes) { break }
                    count += 1
                    bytes += job.bytes
                }
                let group = Array(queue.jobs.prefix(count))
                queue.jobs.removeFirst(count)
                return (group, queue.closed)
            }
            if group.isEmpty {
                if closed { break }
                wake.wait()
                continue
            }
            let results = store(group)
            for (job, result) in zip(group, results) {
                job.completion(result)
            }
        }
        owned.database = nil  // Closes the connection on this thread.
        finished.signal()
    }

    /// Stores `group` in one transaction; on failure, each job alone.
    private func store(_ group: [Job]) -> [Result<IngestDatabase.Outcome, SQLiteError>?] {
        guard let database = owned.database else { return group.map { _ in nil } }
        do throws(SQLiteError) {
            let outcomes = try database.storeGroup(group.map { ($0.batch, $0.receivedAt) })
            groupsCommitted.add(1, ordering: .relaxed)
            return outcomes.map { .success($0) }
        } catch {
            if group.count == 1 { return [.failure(error)] }
            return group.map { job in
                do throws(SQLiteError) {
                    return .success(try database.store(job.batch, receivedAt: job.receivedAt))
                } catch {
                    return .failure(error)
                }
            }
        }
    }
}
