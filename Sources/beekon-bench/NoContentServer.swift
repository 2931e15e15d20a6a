import FleetCommandLine
import MicroHTTP
import Synchronization

/// A server on 127.0.0.1 that reads each request's body and answers 204: the fastest honest
/// ingest server, so the bench measures the fleet.
final class NoContentServer: Sendable {
    private let daemon: MicroHTTPDaemon
    private let counter: Counter

    /// Counts answered requests across the daemon's threads.
    private final class Counter: Sendable {
        let value = Mutex(0)
    }

    /// Requests answered so far.
    var answered: Int { counter.value.withLock { $0 } }

    /// The port it listens on.
    var port: UInt16 { daemon.port }

    init() throws {
        let counter = Counter()
        do throws(MicroHTTPError) {
            daemon = try MicroHTTPDaemon(
                host: "127.0.0.1", port: 0, threads: 2, connectionTimeoutSeconds: 60, connectionLimit: 16_000,
                perIPConnectionLimit: 0, maxBodyBytes: 16 << 20
            ) { _ in
                counter.value.withLock { $0 += 1 }
                return .reply(OutgoingReply(status: 204), delayMillis: 0)
            }
        } catch {
            throw CommandFailure("could not start the loopback 204 server: \(error)")
        }
        self.counter = counter
    }

    func stop() {
        daemon.stop()
    }
}
