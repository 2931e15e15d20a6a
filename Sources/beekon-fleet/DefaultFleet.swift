import Foundation

/// The fleet `run` uses when given none: the demo fleet shipped in `fleets/` (100 devices on
/// the shipped routes in London, Berlin and Paris).
enum DefaultFleet {
    /// The demo fleet's path relative to the project (or install) root.
    static let relativePath = "fleets/demo.yaml"

    /// Where the demo fleet is: under the current folder, else beside the executable (a
    /// `swift build` tree keeps it at `../../fleets` from `.build/release/beekon-fleet`; an
    /// install keeps it in `share/beekon-fleet/fleets`).
    static func locate() throws -> String {
        var candidates = [relativePath]
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = executable.deletingLastPathComponent()
        candidates.append(folder.appendingPathComponent("../share/beekon-fleet/\(relativePath)").standardized.path)
        for _ in 0..<4 {
            folder = folder.deletingLastPathComponent()
            candidates.append(folder.appendingPathComponent(relativePath).path)
        }
        if let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) {
            return found
        }
        throw CommandFailure(
            "no fleet file given and the demo fleet is not here: looked for "
                + candidates.joined(separator: ", ") + ". Give a fleet file: beekon-fleet run FLEET.yaml")
    }
}
