import Foundation

/// A fresh folder for one test's database files, removed when the test is done with it.
package struct TemporaryDirectory {
    /// The folder's path.
    package let path: String

    /// Makes a new, empty folder under the system's temporary folder.
    package init() throws {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("beekon-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the folder.
    package func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    /// Removes the folder and everything in it.
    package func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `body` with a fresh temporary folder and removes the folder afterwards, pass or fail.
package func withTemporaryDirectory<Result>(_ body: (TemporaryDirectory) throws -> Result) throws -> Result {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    return try body(directory)
}
