import BeekonDevice
import BeekonStore
import FleetTestSupport
import Foundation
import Testing

@Suite("Crash durability")
struct StoreCrashTests {
    /// The probe executable, which `swift test` builds next to the test binary because this test
    /// target depends on it.
    static var probePath: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("beekon-store-probe").path
    }

    /// The fixes the probe writes, made the same way (see Tests/StoreProbe/main.swift).
    static func probeFixes(count: Int) -> [Location] {
        let baseMillis: Int64 = 1_700_000_000_000
        var random = SplitMix64(seed: 0x5EED)
        var ids = UUIDv7Generator()
        return (0..<count).map { index in
            let timestamp = baseMillis + Int64(index) * 1000
            return Location(
                id: ids.next(atUnixMillis: timestamp, using: &random),
                latitude: 52.52 + Double(index) * 1e-4, longitude: 13.405,
                timestamp: timestamp, accuracy: 5, trigger: .interval, motion: .moving)!
        }
    }

    @Test(
        "fixes committed by a process killed with SIGKILL are all there when the store is reopened")
    func survivesSIGKILL() throws {
        let probe = Self.probePath
        try #require(
            FileManager.default.isExecutableFile(atPath: probe),
            "beekon-store-probe should be built next to the test binary at \(probe)")
        try withTemporaryDirectory { directory in
            let path = directory.file("device/store.db")
            let count = 25
            let process = Process()
            process.executableURL = URL(fileURLWithPath: probe)
            process.arguments = [path, String(count)]
            let output = Pipe()
            process.standardOutput = output
            try process.run()

            // If the probe hangs instead of committing, kill it so the read below sees EOF.
            let watchdog = DispatchWorkItem { [process] in
                if process.isRunning {
                    kill(process.processIdentifier, SIGKILL)
                }
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
            defer { watchdog.cancel() }

            var printed = ""
            while !printed.contains("committed \(count)\n") {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty {
                    break
                }
                printed += String(decoding: chunk, as: UTF8.self)
            }
            #expect(printed.contains("committed \(count)\n"), "probe printed: \(printed)")

            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            #expect(process.terminationStatus == SIGKILL)
            // The probe died holding the store: its WAL was never checkpointed away.
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))

            let store = try DeviceStore(path: path, retention: .syncing)
            #expect(try store.history(from: .min, to: .max) == Self.probeFixes(count: count))
            #expect(try store.pendingCount() == count)
            #expect(
                store.ledger
                    == FixLedger(
                        admitted: count, acknowledged: 0, rejected: 0, pending: count, expired: 0, deleted: 0, lost: 0))
        }
    }
}
