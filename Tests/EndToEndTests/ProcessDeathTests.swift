import BeekonDevice
import BeekonStore
import FleetTestSupport
import Foundation
import Testing

/// SIGKILL at each step of an upload, then a relaunch from the store: a real process
/// (`beekon-store-probe --upload`) running a Beekon device on a real SQLite store kills itself
/// at the step; a second process restores the device from the same file and drains. The test is
/// the server: it reads what each process sent (issue #16's process-death table).
@Suite("Process death at each step of an upload")
struct ProcessDeathTests {
    static var probe: String { ChildRun.built("beekon-store-probe") }

    /// One upload as the probe printed it: its batch id and fix ids.
    struct Upload: Equatable {
        var batchID: String
        var fixIDs: [String]

        init?(_ line: Substring, after prefix: String) {
            guard line.hasPrefix(prefix) else { return nil }
            let parts = line.dropFirst(prefix.count).split(separator: " ")
            guard parts.count == 2 else { return nil }
            batchID = String(parts[0])
            fixIDs = parts[1].split(separator: ",").map(String.init)
        }
    }

    static func uploads(_ output: String) -> [Upload] {
        output.split(separator: "\n").compactMap { Upload($0, after: "sent ") }
    }

    @Test(
        """
        after SIGKILL at any step and a relaunch, every fix is delivered, the retry carries the same batch_id \
        and rows, and the only duplicate is the batch whose 2xx died with the process
        """,
        arguments: [
            // (the step; whether the server already has the batch when the process dies)
            ("beforeSend", false), ("afterSend", true), ("after2xx", true),
        ])
    func killAtStep(step: String, serverHasIt: Bool) async throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let path = workspace.folder.appendingPathComponent("device/beekon.db").path
        let first = try await ChildRun.run(Self.probe, ["--upload", path, step])
        #expect(first.status == 128 + SIGKILL, "\(first.errors)")
        let atLine = try #require(first.output.split(separator: "\n").last)
        let held = try #require(Upload(atLine, after: "at \(step) "), "probe printed: \(first.output)")
        let sentBefore = Self.uploads(first.output)
        #expect(sentBefore.count == (serverHasIt ? 1 : 0))

        let second = try await ChildRun.run(Self.probe, ["--upload", path, "relaunch"])
        #expect(second.status == 0, "\(second.errors)")
        #expect(second.output.hasSuffix("pending 0\n"), "\(second.output)")
        let sentAfter = Self.uploads(second.output)
        // The first upload after the relaunch is the held batch: same rows, same id.
        let retry = try #require(sentAfter.first)
        #expect(retry.fixIDs == (held.batchID == "-" ? sentBefore[0].fixIDs : held.fixIDs))
        #expect(retry.batchID == sentBefore.first?.batchID ?? held.batchID)
        #expect(sentAfter.map(\.fixIDs.count) == [5, 2])
        #expect(Set(sentAfter.map(\.batchID)).count == 2, "the second batch has an id of its own")

        // What the server received: all 7 fixes; a deduplicating server sees one batch twice
        // exactly when its 2xx died with the process.
        let received = sentBefore + sentAfter
        let fixIDs = received.flatMap(\.fixIDs)
        #expect(Set(fixIDs).count == 7)
        let batchIDs = received.map(\.batchID)
        #expect(batchIDs.count - Set(batchIDs).count == (serverHasIt ? 1 : 0))
        #expect(fixIDs.count - Set(fixIDs).count == (serverHasIt ? 5 : 0))

        // The store accounts for every fix: all 7 admitted and acknowledged, none lost.
        let store = try DeviceStore(path: path, retention: .syncing)
        #expect(
            store.ledger
                == FixLedger(admitted: 7, acknowledged: 7, rejected: 0, pending: 0, expired: 0, deleted: 0, lost: 0))
    }
}
