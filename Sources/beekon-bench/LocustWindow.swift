import FleetCommandLine
import Foundation

/// The locustfile's steady window: the second half of its run time, as it wrote it.
struct LocustWindow: Decodable, Equatable {
    /// Wall seconds of the window.
    var seconds: Double
    /// CPU seconds (user + system) of the locust process and its children over the window.
    var cpuSeconds: Double
    /// Uploads answered 2xx.
    var uploads: Int
    /// Fixes in those uploads.
    var fixes: Int
    /// Uploads answered otherwise, or not at all.
    var failures: Int
    var fixesPerBatch: Int
    var users: Int

    enum CodingKeys: String, CodingKey {
        case seconds
        case cpuSeconds = "cpu_seconds"
        case uploads, fixes, failures
        case fixesPerBatch = "fixes_per_batch"
        case users
    }

    /// Reads the locustfile's JSON object; refuses one that is not, or whose window is empty.
    static func parse(_ data: Data) throws -> LocustWindow {
        let window: LocustWindow
        do {
            window = try JSONDecoder().decode(LocustWindow.self, from: data)
        } catch {
            throw CommandFailure(
                "the locustfile's figures are not what \(LocustRun.locustfilePath) writes "
                    + "(\(String(decoding: data.prefix(200), as: UTF8.self))): \(error)")
        }
        guard window.seconds > 0, window.cpuSeconds >= 0, window.uploads >= 0, window.fixes >= 0,
            window.failures >= 0
        else {
            throw CommandFailure(
                "the locustfile measured an empty or negative window: \(window.seconds) s, "
                    + "\(window.cpuSeconds) CPU s, \(window.uploads) uploads")
        }
        return window
    }

    /// Uploads answered 2xx per wall second.
    var requestsPerSecond: Double { Double(uploads) / seconds }

    /// Locust's CPU per upload answered 2xx, µs; nil when none was.
    var cpuMicrosPerRequest: Double? { uploads > 0 ? cpuSeconds / Double(uploads) * 1e6 : nil }
}
