import BeekonDevice
import BeekonStore
import FleetTestSupport
import Foundation
import IngestReceiver
import SQLite
import ServerTruth
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// Reinstalls and upgrades on the real driver, against the reference receiver over loopback:
/// what the server's store holds of each install, and what `verify` makes of it.
@Suite("Churn at the receiver", .serialized)
struct ChurnReceiverTests {
    /// 6 walkers whose uploads carry their device id (`user_id`), with `faults`.
    static func yaml(faults: String, churn: String = "") -> String {
        Workspace.yaml(devices: 6, sync: "{syncThreshold: 4, intervalSeconds: 60}", faults: faults)
            .replacingOccurrences(
                of: "    config:\n",
                with: "    extras: {user_id: \"{id}\"}\n" + (churn.isEmpty ? "" : "    churn: \(churn)\n")
                    + "    config:\n")
    }

    /// Rows of `sql` in the receiver's database, each as its text columns.
    static func rows(_ database: String, _ sql: String, columns: Int) throws -> [[String]] {
        let statement = try SQLiteConnection(path: database).prepare(sql)
        defer { statement.reset() }
        var rows: [[String]] = []
        while try statement.step() { rows.append((0..<columns).map { statement.string(at: Int32($0)) }) }
        return rows
    }

    static func json<Value: Decodable>(_ type: Value.Type, _ path: String) throws -> Value {
        try JSONDecoder().decode(type, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test(
        """
        a reinstall at 10 min: the server holds two installs of each device, never a fix pending at \
        the reinstall, and verify counts those uninstalled and passes
        """
    )
    func reinstall() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver()
        defer { server.stop() }
        // Offline from 8 min: every device has minutes of fixes pending when it is reinstalled.
        let faults = """
            faults:
              - {at: 8m, for: 3m, select: all, action: networkOffline}
              - {at: 10m, select: all, action: reinstall, params: {openAfterSeconds: 30}}
            """
        let runtime = try await workspace.runtime(
            Self.yaml(faults: faults), ingest: server.url, virtualMinutes: 20, timing: .deterministic)
        let metrics = runtime.metrics
        let current = try Self.json([String: String].self, "\(workspace.data)/devices.json")
        let former = try Self.json([String: [String]].self, "\(workspace.data)/installs.json")
        #expect(current.count == 6 && former.count == 6)
        #expect(former.values.allSatisfy { $0.count == 1 })
        // The server's devices: both installs of each device, told apart by its user_id.
        let database = server.configuration.databasePath
        let installs = Set(try Self.rows(database, "SELECT install_id FROM devices", columns: 1).map { $0[0] })
        #expect(installs == Set(current.values).union(former.values.flatMap { $0 }))
        var installsByUser: [String: Set<String>] = [:]
        for row in try Self.rows(database, "SELECT DISTINCT install_id, extras FROM batches", columns: 2) {
            let extras = try JSONSerialization.jsonObject(with: Data(row[1].utf8)) as? [String: String]
            installsByUser[extras?["user_id"] ?? "", default: []].insert(row[0])
        }
        for (device, install) in current {
            #expect(installsByUser[device] == [install, former[device]![0]])
        }
        // The fixes the old installs held when they were uninstalled: counted, never stored.
        var wiped: Set<String> = []
        for old in former.values.flatMap({ $0 }) {
            let records = try StoreRecords.read(path: "\(workspace.data)/devices/\(old)/beekon.db")
            wiped.formUnion(records.pending.map(\.text))
        }
        #expect(wiped.count >= 30, "\(wiped.count) fixes pending at the reinstall")
        #expect(metrics.fixes.ledger.uninstalled == wiped.count)
        #expect(metrics.fixes.unaccounted == 0)
        let stored = Set(try server.receivedFixes().map(\.id))
        #expect(stored.isDisjoint(with: wiped))
        // verify: the wiped fixes are the fleet's doing, not the server's loss.
        let verification = try Verification(
            folders: try RunFolder.find(workspace.data), rows: [.databases([database])], thresholds: [], examples: 5)
        let total = verification.result.total
        #expect(verification.passed)
        #expect(total.fixes[.uninstalledNotStored] == wiped.count)
        #expect(total.fixes[.lost] == 0 && total.misattributed == 0 && total.foreign == 0)
        #expect(total.fixes[.acknowledgedStored] == metrics.fixes.ledger.acknowledged)
        #expect(verification.result.devices == 6)
    }

    @Test(
        """
        an upgrade at 4 min: the receiver counts one sdk_version change per device, and the batch \
        refused before it and retried after it is stored once
        """
    )
    func upgrade() async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        // Each install's first upload (within its first minute) is stored, then answered 503 with
        // a Retry-After of 10 minutes: it goes again only after the upgrade.
        let server = try workspace.receiver {
            $0.script = AnswerScript(failFirst: 1, failFirstStatus: 503, retryAfter: "600", storeBeforeFault: true)
        }
        defer { server.stop() }
        let faults = """
            faults:
              - {at: 4m, select: all, action: upgrade, params: {sdkVersion: "0.2.0"}}
            """
        let runtime = try await workspace.runtime(
            Self.yaml(faults: faults), ingest: server.url, virtualMinutes: 10, timing: .deterministic)
        let stats = server.stats()
        #expect(stats.sdkVersionChanges == 6)
        #expect(stats.duplicateBatches >= 6 && stats.duplicateFixes > 0)
        #expect(stats.batchesChangedOnRetry == 0 && stats.fixesInAnotherBatch == 0)
        let log = server.uploadLog()
        for install in Set(log.map(\.installID)) {
            let uploads = log.filter { $0.installID == install }
            let refused = try #require(uploads.first)
            #expect(refused.scripted != nil)
            // The same batch again, after the upgrade: one row per fix in the database.
            let retries = uploads.dropFirst().filter { $0.batchID == refused.batchID }
            #expect(retries.count == 1)
        }
        let database = server.configuration.databasePath
        let versions = try Self.rows(database, "SELECT sdk_version FROM devices", columns: 1).map { $0[0] }
        #expect(versions == Array(repeating: "0.2.0", count: 6))
        let fixes = try server.receivedFixes()
        #expect(Set(fixes.map(\.id)).count == fixes.count)
        #expect(runtime.metrics.fixes.ledger.uninstalled == 0)
        #expect(runtime.snapshot.devices.allSatisfy { $0.sdkVersion == "0.2.0" })
    }

    /// One run of a fleet with reinstalls (the timeline's and a group's churn) and an upgrade:
    /// its digest, what the server got by install, and the data folder's install files.
    static func replay(warp: Int, maxWarp: Bool = false, loops: Int = 1) async throws -> (
        digest: RequestDigest, uploads: [String: [String]], files: [String: String]
    ) {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let server = try workspace.receiver { $0.script = AnswerScript(failFirst: 1, failFirstStatus: 503) }
        defer { server.stop() }
        let faults = """
            faults:
              - {at: 5m, select: {fraction: 0.5}, action: reinstall, params: {openAfterSeconds: 90}}
              - {at: 12m, select: all, action: upgrade, params: {sdkVersion: "0.3.0"}}
            """
        let yaml = Self.yaml(
            faults: faults, churn: #"{reinstallsPerDay: 24, upgrade: {sdkVersion: "0.2.0", over: 10m}}"#
        )
        .replacingOccurrences(of: "warp: 3000", with: "warp: \(warp)")
        let runtime = try await workspace.runtime(
            yaml, ingest: server.url, virtualMinutes: 30, timing: .deterministic, maxWarp: maxWarp, loops: loops)
        let uploads = server.uploadsByInstall()
        var files: [String: String] = [:]
        for name in ["devices.json", "installs.json"] {
            files[name] = try String(contentsOfFile: "\(workspace.data)/\(name)", encoding: .utf8)
        }
        return (runtime.metrics.sent, uploads, files)
    }

    @Test(
        """
        the same seed reinstalls at the same instants with the same install ids, and sends the same \
        requests, at warp 600, 3000 and max, over 1 and 2 loops
        """
    )
    func replays() async throws {
        let first = try await Self.replay(warp: 3000)
        #expect(first.digest.count > 20, "too few requests to compare: \(first.digest.count)")
        let former = try JSONDecoder().decode([String: [String]].self, from: Data(first.files["installs.json"]!.utf8))
        #expect(former.count >= 3, "\(former)")
        for other in [
            try await Self.replay(warp: 600), try await Self.replay(warp: 3000, maxWarp: true),
            try await Self.replay(warp: 3000, loops: 2),
        ] {
            #expect(other.files == first.files)
            #expect(other.uploads == first.uploads)
            #expect(other.digest == first.digest)
        }
    }
}
