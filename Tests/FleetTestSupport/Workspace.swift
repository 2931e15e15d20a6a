import FleetDescription
import Foundation

/// A temporary folder with a 2 km walking route in it, removed by `cleanUp()`.
package struct Workspace {
    package let folder: URL

    /// Where workspaces go: in memory (`/dev/shm`) where there is one, since a device store's
    /// SQLite file costs tens of ms of fsyncs to create on a disk; else the temporary folder.
    package static let root =
        FileManager.default.isWritableFile(atPath: "/dev/shm")
        ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory

    package init() throws {
        folder = Self.root.appendingPathComponent("beekon-runtime-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var csv = "lat,lon\n"
        for index in 0...20 {
            csv += "\(52.5 + Double(index) * 0.0009),13.4\n"
        }
        try csv.write(to: folder.appendingPathComponent("walk.csv"), atomically: true, encoding: .utf8)
    }

    package var data: String { folder.appendingPathComponent("data").path }

    package func fleet(_ yaml: String) throws -> FleetFile {
        let path = folder.appendingPathComponent("fleet.yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return try FleetFile.load(path: path)
    }

    package func cleanUp() {
        try? FileManager.default.removeItem(at: folder)
    }
}

extension Workspace {
    /// `clock.start` of `yaml()`, Unix ms.
    package static let start: Int64 = 1_781_510_400_000
    package static let minute: Int64 = 60_000

    /// `devices` walkers on walk.csv at warp 3000, every one spawned at the start, its first
    /// upload the sync interval's, 60 s in.
    package static func yaml(
        devices: Int = 20, sync: String = "{syncThreshold: 5, intervalSeconds: 60}", faults: String = ""
    ) -> String {
        """
        name: test
        seed: 7
        clock: {start: 2026-06-15T08:00:00Z, warp: 3000}
        groups:
          - name: walkers
            count: \(devices)
            platform: {ios: 0.5, android: 0.5}
            route: walk.csv
            pace: walk
            startOffset: random
            config:
              preset: precision
              whenStationary: keepTracking
              sync: \(sync)
        \(faults)
        """
    }

    /// 3 walkers on walk.csv at `warp`, each upload 3 fixes, with `faults`.
    package static func yaml(warp: Int, faults: String = "") -> String {
        """
        name: timing
        seed: 3
        clock: {start: 2026-06-15T08:00:00Z, warp: \(warp)}
        groups:
          - name: walkers
            count: 3
            platform: android
            route: walk.csv
            pace: walk
            config:
              preset: precision
              minTimeBetweenLocationsSeconds: 1
              minDistanceBetweenLocationsMeters: 0
              whenStationary: keepTracking
              sync: {syncThreshold: 3, intervalSeconds: 60}
        \(faults)
        """
    }
}
