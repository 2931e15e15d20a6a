import FleetRuntime

/// The fleet `run` uses when given none, and the one `beekon-bench max-warp` scales: the demo
/// fleet shipped in `fleets/` (100 devices on the shipped routes in London, Berlin and Paris).
public enum DefaultFleet {
    /// The demo fleet's path relative to the project (or install) root.
    static let relativePath = "fleets/demo.yaml"

    /// Where the demo fleet is (see `ShippedFiles`).
    public static func locate() throws -> String {
        if let found = ShippedFiles.find(relativePath) { return found }
        throw CommandFailure(
            "no fleet file given and the demo fleet is not here: looked for "
                + ShippedFiles.searched(relativePath).joined(separator: ", ")
                + ". Give a fleet file: beekon-fleet run FLEET.yaml")
    }
}
