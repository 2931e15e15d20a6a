import Foundation

/// A folder for a benchmark's files: the one given, or a new temporary one that is removed after.
struct BenchFolder {
    let root: String
    private let removeAfter: Bool

    init(_ given: String?) throws {
        if let given {
            root = given
            removeAfter = false
        } else {
            root =
                FileManager.default.temporaryDirectory
                .appendingPathComponent("beekon-bench-\(ProcessInfo.processInfo.processIdentifier)").path
            removeAfter = true
        }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    func path(_ relative: String) -> String {
        root + "/" + relative
    }

    func remove() {
        if removeAfter { try? FileManager.default.removeItem(atPath: root) }
    }
}
