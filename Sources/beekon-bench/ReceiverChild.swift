import FleetCommandLine
import Foundation

/// `beekon-fleet receive` started as a child process of this one, listening on a free loopback port.
struct ReceiverChild {
    let process: ChildProcess
    let url: String
    let port: UInt16

    /// The `beekon-fleet` beside this executable: the package builds it with `beekon-bench` (a
    /// dependency built, not linked), and an install puts both in one folder.
    static func executable() throws -> String {
        let bench = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let path = URL(fileURLWithPath: bench).deletingLastPathComponent().appendingPathComponent("beekon-fleet").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw CommandFailure(
                "no beekon-fleet beside beekon-bench (\(path)) to run the receiver; build both: swift build -c release")
        }
        return path
    }

    /// Starts it with its database and output in `folder`, plus `arguments`; waits for its banner.
    init(folder: String, arguments: [String] = []) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        process = try ChildProcess(
            Self.executable(), ["receive", "--listen", "127.0.0.1:0", "--db", folder + "/ingest.db"] + arguments,
            outputPath: folder + "/receive.out")
        let banner = "beekon-fleet receive: listening on "
        var url: String?
        for _ in 0..<500 where url == nil && !process.hasExited {
            url = process.output().split(separator: "\n").first { $0.hasPrefix(banner) }
                .map { String($0.dropFirst(banner.count)) }
            if url == nil { usleep(10_000) }
        }
        guard let url, let port = url.split(separator: ":").last.flatMap({ UInt16($0.prefix { $0.isNumber }) }) else {
            process.stop()
            throw CommandFailure("beekon-fleet receive did not start:\n\(process.output())")
        }
        self.url = url
        self.port = port
    }
}
