/// The file descriptors a command needs, worked out before it starts, and how many device
/// stores a run may keep open within the limit it has.
///
/// Each part is counted at the most it can hold, so a run that fits never meets EMFILE:
/// - device stores: three each (database, `-wal` and the descriptor holding its lock; with
///   `locking_mode=EXCLUSIVE` the WAL index lives on the heap, not in a `-shm` file). The pool
///   opens stores on demand, so a run needs only `minimumOpenStores` open; whatever the limit
///   leaves goes to more, up to `maxOpenStores`;
/// - upload connections: one socket per device connection, in flight (`--max-connections`, all
///   devices when 0) or kept idle for the device's next upload (the transport's idle bound), and
///   never more than one per device;
/// - the admin server: its connection limit and its listening socket;
/// - the in-process receiver: one socket per fleet connection (the fleet is its only client) plus
///   `receiverSlack` (closes it has not seen yet), its listening socket, and its database
///   (database, `-wal`, `-shm`);
/// - `margin` for the rest: standard streams, the epoll and event descriptors of the transport's
///   and the servers' threads, route files being read, SQLite's temporary files.
public struct DescriptorBudget: Sendable, Equatable {
    /// One named part of the budget.
    public struct Part: Sendable, Equatable {
        /// What the descriptors are for, as the refusal prints it.
        public let name: String
        /// How many.
        public let descriptors: Int
    }

    /// Descriptors an open device store holds.
    public static let descriptorsPerStore = 3
    /// The fewest stores a run keeps open (fewer devices, that many): below it the pool reopens
    /// a store on nearly every use.
    public static let minimumOpenStores = 64
    /// The most stores a run keeps open: an idle open store holds about 54 KiB (its WAL index and
    /// page cache; `bench store`), a closed one almost nothing, and a reopen costs about 150 µs
    /// (the file's schema parsed again, its statements compiled again). With reopens the
    /// largest cost left, 6,218 open (all that 20,000 descriptors allow) instead of 4,096 took
    /// 13 % less CPU at 10,000 devices for 135 MiB more RSS (docs/benchmarks.md); at most
    /// 8,192, 430 MiB, on a machine that allows more.
    public static let maxOpenStores = 8192
    /// Receiver connections beyond the fleet's: connections the client has closed and the
    /// receiver has not yet noticed.
    public static let receiverSlack = 64
    /// Descriptors for everything not counted by a part of its own.
    public static let margin = 64
    /// The receiver's database files: database, `-wal`, `-shm`.
    public static let receiverDatabaseFiles = 3

    /// The parts, in the order the refusal lists them.
    public let parts: [Part]
    /// Devices in the run (0 for `receive`).
    public let devices: Int

    /// The least the command works with: the sum of its parts.
    public var needed: Int { parts.reduce(0) { $0 + $1.descriptors } }

    /// The budget of `run`.
    /// - Parameters:
    ///   - devices: devices in the fleet.
    ///   - maxConnections: uploads in flight at once, 0 for no limit.
    ///   - idleConnections: idle device connections the transport keeps open.
    ///   - adminConnections: the admin server's connection limit; nil with the admin off.
    ///   - embeddedReceiver: whether the reference receiver runs in-process.
    public static func run(
        devices: Int, maxConnections: Int, idleConnections: Int, adminConnections: Int?, embeddedReceiver: Bool
    ) -> DescriptorBudget {
        let stores = min(devices, minimumOpenStores)
        let connections = fleetConnections(
            devices: devices, maxConnections: maxConnections, idleConnections: idleConnections)
        var parts = [
            Part(
                name: "\(stores) open stores (\(descriptorsPerStore) each)", descriptors: stores * descriptorsPerStore),
            Part(name: "upload connections", descriptors: connections),
        ]
        if let adminConnections {
            parts.append(Part(name: "the admin server", descriptors: adminConnections + 1))
        }
        if embeddedReceiver {
            let receiver =
                receiverConnections(devices: devices, maxConnections: maxConnections, idleConnections: idleConnections)
                + 1 + receiverDatabaseFiles
            parts.append(Part(name: "the in-process receiver", descriptors: receiver))
        }
        parts.append(Part(name: "everything else", descriptors: margin))
        return DescriptorBudget(parts: parts, devices: devices)
    }

    /// The budget of `receive`: its connection limit, listening socket, database and the margin.
    public static func receive(connectionLimit: Int) -> DescriptorBudget {
        DescriptorBudget(
            parts: [
                Part(name: "connections", descriptors: connectionLimit + 1),
                Part(name: "the database", descriptors: receiverDatabaseFiles),
                Part(name: "everything else", descriptors: margin),
            ], devices: 0)
    }

    /// Sockets the fleet's transport can hold at once: in flight or idle, at most one per device.
    public static func fleetConnections(devices: Int, maxConnections: Int, idleConnections: Int) -> Int {
        let inFlight = maxConnections <= 0 ? devices : min(devices, maxConnections)
        return min(devices, inFlight + max(0, idleConnections))
    }

    /// The connections an in-process receiver can hold at once: the fleet's sockets and the slack.
    public static func receiverConnections(devices: Int, maxConnections: Int, idleConnections: Int) -> Int {
        let fleet = fleetConnections(devices: devices, maxConnections: maxConnections, idleConnections: idleConnections)
        return fleet + receiverSlack
    }

    /// How many stores may stay open with `limit` descriptors: the minimum, plus one for every
    /// three descriptors the limit leaves, up to `maxOpenStores` and the number of devices.
    public func openStores(limit: Int) -> Int {
        let floor = min(devices, Self.minimumOpenStores)
        let spare = max(0, limit - needed)
        return max(1, min(devices, Self.maxOpenStores, floor + spare / Self.descriptorsPerStore))
    }

    /// Why `command` (the program and its subcommand, e.g. `beekon-fleet run`) cannot start with
    /// `limit` descriptors (the hard limit, once the soft one is raised to it), with the fix; nil
    /// when the limit is enough.
    public func refusal(command: String, limit: Int) -> String? {
        guard limit < needed else { return nil }
        let detail = parts.map { "\($0.descriptors) for \($0.name)" }.joined(separator: ", ")
        let whose = devices > 0 ? "\(command) of \(devices) devices" : command
        return "\(whose) needs at least \(needed) file descriptors (\(detail)), "
            + "and the open-file limit is \(limit). Raise it: `ulimit -n \(needed)` in the shell that starts it, "
            + "or in docker compose `ulimits: nofile: \(needed)`."
    }
}
