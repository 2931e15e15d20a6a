import Foundation
import IngestReceiver
import SQLite

extension Workspace {
    /// The reference receiver on 127.0.0.1, port 0, for a real run to upload to: its database
    /// beside the data folder (not in it, so what a run leaves there is the run's alone), its
    /// upload log on, and its answers as `configure` scripts them (stored, then 200 at once).
    package func receiver(_ configure: (inout IngestReceiverConfiguration) -> Void = { _ in }) throws -> IngestReceiver
    {
        var configuration = IngestReceiverConfiguration(
            port: 0, databasePath: folder.appendingPathComponent("receiver.db").path, threads: 2,
            keepsUploadLog: true)
        configure(&configuration)
        return try IngestReceiver(configuration: configuration)
    }
}

extension IngestReceiver {
    /// Polls every 10 ms until the upload log holds `count` uploads (true) or `seconds` have
    /// passed (false), blocking the calling thread: call it off the pool.
    package func waitForUploads(_ count: Int, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while uploadLog().count < count {
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }

    /// What its upload log holds, by install in arrival order: each upload's batch id, `sent_at`
    /// and fix count, what a replay compares.
    package func uploadsByInstall() -> [String: [String]] {
        var uploads: [String: [String]] = [:]
        for upload in uploadLog() {
            uploads[upload.installID, default: []].append("\(upload.batchID) \(upload.sentAt) \(upload.locationCount)")
        }
        return uploads
    }

    /// The fixes its database holds: every one it stored, once, whatever it answered.
    package func receivedFixes() throws -> [(id: String, timestamp: Int64)] {
        try Self.receivedFixes(inDatabase: configuration.databasePath)
    }

    /// The fixes a receiver's database at `path` holds, by id, with their timestamps (Unix ms),
    /// read with a connection of its own (the receiver's writer may still hold the file).
    package static func receivedFixes(inDatabase path: String) throws -> [(id: String, timestamp: Int64)] {
        let rows = try SQLiteConnection(path: path).prepare("SELECT id, ts FROM locations")
        defer { rows.reset() }
        var fixes: [(id: String, timestamp: Int64)] = []
        while try rows.step() {
            fixes.append((rows.string(at: 0), rows.int64(at: 1)))
        }
        return fixes
    }
}
