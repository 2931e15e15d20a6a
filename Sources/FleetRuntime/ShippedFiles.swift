import Foundation

/// The files shipped with beekon-fleet (the demo fleet and its routes, the admin page, the API
/// description), found where a checkout, a build tree or an install keeps them.
public enum ShippedFiles {
    /// Where to look, in order: the current folder; an install's `share/beekon-fleet` beside
    /// the executable's `bin/`; and the folders above the executable (a `swift build` tree keeps
    /// the package root at `../..` from `.build/release/beekon-fleet`).
    public static var roots: [String] {
        var roots = [FileManager.default.currentDirectoryPath]
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = executable.deletingLastPathComponent()
        roots.append(folder.appendingPathComponent("../share/beekon-fleet").standardized.path)
        for _ in 0..<5 {
            folder = folder.deletingLastPathComponent()
            roots.append(folder.path)
        }
        return roots
    }

    /// The first `root/relativePath` that exists, or nil.
    public static func find(_ relativePath: String) -> String? {
        roots.map { URL(fileURLWithPath: $0).appendingPathComponent(relativePath).path }
            .first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Where `relativePath` was looked for, for an error message.
    public static func searched(_ relativePath: String) -> [String] {
        roots.map { URL(fileURLWithPath: $0).appendingPathComponent(relativePath).path }
    }
}
