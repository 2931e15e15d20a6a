import BeekonDevice
import BeekonStore

/// A device of the run, as `verify` reads it: its ids, its group (by index) and its store.
public struct VerifiedDevice: Sendable {
    public var deviceID: String
    public var installID: UUIDv7
    public var group: Int
    /// Its store's file.
    public var storePath: String
    /// An install a reinstall replaced (`installs.json`): its store's pending fixes were wiped.
    public var former = false
    /// Its store was written before told records (schema v3 or older): which of its fixes were
    /// acknowledged is unknown, so the server's rows of it are counted apart (`unrecorded`).
    public var predatesTold = false

    public init(deviceID: String, installID: UUIDv7, group: Int, storePath: String, former: Bool = false) {
        self.deviceID = deviceID
        self.installID = installID
        self.group = group
        self.storePath = storePath
        self.former = former
    }
}

/// One row of the server's store: whose it says the fix is, and the fix id.
public struct StoredRow: Sendable {
    /// The install id column: empty when the server keeps none (not checked then).
    public enum Install: Sendable, Hashable {
        case empty
        case id(UUIDv7)
        /// Not a UUID: no device of the run's.
        case other(String)
    }

    public var install: Install
    public var fixID: UUIDv7
    /// Where it came from (1-based line of the rows given, or row number of a database).
    public var line: Int

    public init(install: Install, fixID: UUIDv7, line: Int) {
        self.install = install
        self.fixID = fixID
        self.line = line
    }
}

/// Joins what every device was told with the rows the server holds, streaming the rows: the
/// devices' side is indexed first (`add`, `seal`), then each row finds its fix by id.
public struct TruthJoin {
    public private(set) var devices: [VerifiedDevice] = []
    public let groups: [String]
    var index = ToldIndex()
    /// The server's rows of each index entry.
    var stored: [UInt32] = []
    /// Entries the server holds under another install id than their device's.
    var misattributed: [Bool] = []
    var foreignIDs: [UUIDv7] = []
    var foreignRows: [StoredRow] = []
    var unrecorded = 0
    var serverRows = 0
    /// Rows whose fix id is one of the run's install ids: the columns given the wrong way round.
    var fixIDsThatAreInstallIDs = 0
    private var installOwners: [UUIDv7: Int] = [:]
    let exampleLimit: Int

    /// `groups` by index, as `VerifiedDevice.group` counts them; up to `examples` of each
    /// problem are kept.
    public init(groups: [String], examples: Int) {
        self.groups = groups
        exampleLimit = examples
    }

    /// A device and what its store holds.
    public mutating func add(_ device: VerifiedDevice, _ records: StoreRecords) {
        var device = device
        device.predatesTold = records.predatesTold
        installOwners[device.installID] = devices.count
        index.add(records, device: UInt32(devices.count), uninstalled: device.former)
        devices.append(device)
    }

    /// Every device is in: the index is sorted, ready for the server's rows.
    public mutating func seal() {
        index.seal()
        stored = Array(repeating: 0, count: index.entries.count)
        misattributed = Array(repeating: false, count: index.entries.count)
    }

    /// Fixes the devices' side holds (each once).
    public var fixesTold: Int { index.entries.count }

    /// One row of the server's store.
    public mutating func add(_ row: StoredRow) {
        serverRows += 1
        guard let entry = index.find(row.fixID) else {
            if installOwners[row.fixID] != nil { fixIDsThatAreInstallIDs += 1 }
            if case .id(let install) = row.install, let owner = installOwners[install], devices[owner].predatesTold {
                unrecorded += 1
                return
            }
            foreignIDs.append(row.fixID)
            if foreignRows.count < exampleLimit { foreignRows.append(row) }
            return
        }
        stored[entry] &+= 1
        let owner = devices[Int(index.entries[entry].device)].installID
        switch row.install {
        case .empty: break
        case .id(let install): if install != owner { misattributed[entry] = true }
        case .other: misattributed[entry] = true
        }
    }

    /// Whether the rows look given as fix_id,install_id: most name one of the run's install ids
    /// where the fix id should be.
    public var columnsLookSwapped: Bool {
        serverRows > 0 && fixIDsThatAreInstallIDs * 2 > serverRows
    }
}
