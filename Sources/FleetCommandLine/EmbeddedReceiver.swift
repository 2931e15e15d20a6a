import BeekonStore
import IngestReceiver

/// The reference receiver `run` starts when the fleet has nowhere to upload (and `beekon-bench
/// max-warp` always).
public enum EmbeddedReceiver {
    /// Starts it on a free loopback port with its database in the run's data folder, ready for
    /// `connections` connections at once (the fleet's, as `DescriptorBudget` counts them: its
    /// only client cannot hold more), answering every upload `latencyMillis` late (benchmarks).
    public static func start(dataDirectory: String, connections: Int, latencyMillis: Int = 0) throws -> IngestReceiver {
        do {
            try PrivateFile.createFolder(atPath: dataDirectory)
        } catch {
            throw CommandFailure("cannot create the data folder \(dataDirectory): \(error.localizedDescription)")
        }
        var configuration = IngestReceiverConfiguration(
            host: "127.0.0.1", port: 0, databasePath: "\(dataDirectory)/ingest.db")
        // libmicrohttpd splits its connection limit evenly between its threads, and which thread
        // accepts a connection is a race: each gets room for all of them.
        configuration.connectionLimit = connections * configuration.threads
        // Every connection comes from the fleet on 127.0.0.1: no per-address cap.
        configuration.perIPConnectionLimit = 0
        configuration.script.latencyMillis = latencyMillis
        do throws(IngestReceiverError) {
            return try IngestReceiver(configuration: configuration)
        } catch {
            throw CommandFailure("cannot start the in-process ingest receiver: \(error)")
        }
    }
}
