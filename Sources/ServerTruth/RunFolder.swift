import BeekonDevice
import Foundation

/// A run's data folder as `verify` reads it: its devices (`devices.json`), the installs its
/// reinstalls replaced (`installs.json`), its groups (`run-identity.json`) and, when the run
/// used the in-process receiver, that receiver's database. A sharded run keeps one in each
/// `shard-I-of-N` folder: each is a run folder.
public struct RunFolder: Sendable {
    public var path: String
    /// By device id, sorted.
    public var devices: [(deviceID: String, installID: UUIDv7)]
    /// The installs reinstalls replaced, by device id, then oldest first: their stores stay, wiped
    /// as far as their devices knew.
    public var formerInstalls: [(deviceID: String, installID: UUIDv7)] = []
    /// The fleet's groups, in its order (from the run record; empty when it has none).
    public var groups: [String]
    /// The in-process receiver's database, when there is one.
    public var receiverDatabase: String?

    /// The store of the device with `installID`.
    public func storePath(_ installID: UUIDv7) -> String { "\(path)/devices/\(installID.text)/beekon.db" }

    /// The run folders under `data`: itself, or its shards' folders.
    public static func find(_ data: String) throws(VerifyProblem) -> [RunFolder] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: data, isDirectory: &isFolder), isFolder.boolValue else {
            throw VerifyProblem("--data \(data): no such folder (the folder a run's --data named)")
        }
        if FileManager.default.fileExists(atPath: "\(data)/devices.json") { return [try read(data)] }
        let shards = ((try? FileManager.default.contentsOfDirectory(atPath: data)) ?? [])
            .filter { $0.hasPrefix("shard-") && FileManager.default.fileExists(atPath: "\(data)/\($0)/devices.json") }
            .sorted()
        guard !shards.isEmpty else {
            throw VerifyProblem(
                "--data \(data): holds no run (no devices.json, and no shard-I-of-N folder with one): "
                    + "give the folder the run's --data named")
        }
        var folders: [RunFolder] = []
        for shard in shards { folders.append(try read("\(data)/\(shard)")) }
        return folders
    }

    static func read(_ path: String) throws(VerifyProblem) -> RunFolder {
        let file = "\(path)/devices.json"
        guard let data = FileManager.default.contents(atPath: file) else {
            throw VerifyProblem("\(file) cannot be read")
        }
        guard let map = try? JSONDecoder().decode([String: String].self, from: data) else {
            throw VerifyProblem("\(file) is not what a run writes: expected a JSON object of device id to install id")
        }
        var devices: [(String, UUIDv7)] = []
        for (device, install) in map.sorted(by: { $0.key < $1.key }) {
            guard let id = UUIDv7(install) else {
                throw VerifyProblem("\(file): device \"\(device)\" has install id \"\(install)\", not a UUID")
            }
            devices.append((device, id))
        }
        let database = "\(path)/ingest.db"
        return RunFolder(
            path: path, devices: devices, formerInstalls: try formerInstalls(path), groups: groups(path),
            receiverDatabase: FileManager.default.fileExists(atPath: database) ? database : nil)
    }

    /// `installs.json`: device id to the install ids its reinstalls replaced (none without the file).
    static func formerInstalls(_ path: String) throws(VerifyProblem) -> [(deviceID: String, installID: UUIDv7)] {
        let file = "\(path)/installs.json"
        guard let data = FileManager.default.contents(atPath: file) else { return [] }
        guard let map = try? JSONDecoder().decode([String: [String]].self, from: data) else {
            throw VerifyProblem(
                "\(file) is not what a run writes: expected a JSON object of device id to a list of install ids")
        }
        var installs: [(String, UUIDv7)] = []
        for (device, ids) in map.sorted(by: { $0.key < $1.key }) {
            for install in ids {
                guard let id = UUIDv7(install) else {
                    throw VerifyProblem("\(file): device \"\(device)\" has install id \"\(install)\", not a UUID")
                }
                installs.append((device, id))
            }
        }
        return installs
    }

    /// The group names the run record lists (none when it has none: a device's group is then
    /// its id without the trailing `-NNNN`).
    static func groups(_ path: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: "\(path)/run-identity.json"),
            let record = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let groups = record["groups"] as? [[String: Any]]
        else { return [] }
        return groups.compactMap { $0["name"] as? String }
    }

    /// The run's groups in the fleet's order, from every folder's record, then from device ids.
    public static func groups(_ folders: [RunFolder]) -> [String] {
        var groups: [String] = []
        for folder in folders {
            for group in folder.groups where !groups.contains(group) { groups.append(group) }
        }
        for folder in folders {
            for (deviceID, _) in folder.devices {
                let group = Self.group(of: deviceID, in: groups)
                if !groups.contains(group) { groups.append(group) }
            }
        }
        return groups
    }

    /// The group of `deviceID`: the longest of `groups` it is named after (`NAME-0001`), else
    /// its id without the trailing number.
    public static func group(of deviceID: String, in groups: [String]) -> String {
        if let name = groups.filter({ deviceID.hasPrefix($0 + "-") }).max(by: { $0.count < $1.count }) {
            return name
        }
        guard let dash = deviceID.lastIndex(of: "-"), deviceID[deviceID.index(after: dash)...].allSatisfy(\.isNumber)
        else { return deviceID }
        return String(deviceID[..<dash])
    }
}

/// Input `verify` cannot take, said with what was expected.
public struct VerifyProblem: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
