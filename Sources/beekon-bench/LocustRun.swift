import FleetCommandLine
import FleetRuntime
import Foundation

/// Locust (PyPI `locust`) run headless in one process with `bench/locustfile.py`: FastHttpUsers
/// that each build a fresh batch per request (new UUIDv7s and timestamps, json, Python's gzip)
/// and POST it to the bench's nginx, the load tool users compare the fleet with.
struct LocustRun {
    /// The `locust` executable.
    let executable: String
    /// The shipped locustfile.
    let locustfile: String
    /// Users (`-u`), all spawned within the first second (`-r` the same).
    let users: Int
    /// Whole seconds of `--run-time`; the locustfile measures the second half.
    let seconds: Int

    /// Where the locustfile is kept: `bench/` of the checkout (found as the shipped files are).
    static let locustfilePath = "bench/locustfile.py"

    /// Why Locust is left out when `find` finds no `locust`.
    static let notFound = "locust not found on PATH (PyPI locust: python3 -m pip install locust)"

    /// `locust` on PATH and the shipped locustfile; nil when locust is not installed. A missing
    /// locustfile beside an installed locust is an error: the checkout is incomplete.
    static func find(users: Int, seconds: Double) throws -> LocustRun? {
        guard let executable = ChildProcess.find("locust") else { return nil }
        guard let locustfile = ShippedFiles.find(locustfilePath) else {
            throw CommandFailure(
                "beekon-bench upload: \(locustfilePath) not found (looked in "
                    + ShippedFiles.searched(locustfilePath).joined(separator: ", ")
                    + "); run from the checkout, or pass --skip-locust")
        }
        return LocustRun(
            executable: executable, locustfile: locustfile, users: users,
            seconds: max(Int(seconds.rounded(.up)), minimumSeconds))
    }

    /// Locust's run time is at least this: its steady window (the second half) must outlast the
    /// users' spawning and Python's start.
    static let minimumSeconds = 2

    /// What one Locust run measured: its steady window and its whole run.
    struct Measured {
        var window: LocustWindow
        /// CPU seconds of the locust process and its children over the whole run (Python's start
        /// and the summary included), from /proc/PID/stat before it is reaped.
        var wholeRunCPU: Double
    }

    /// Runs Locust against `host` (scheme, address and port) POSTing `fixes`-fix batches to
    /// `path`, its output and figures under `folder`.
    func measure(fixes: Int, host: String, path: String, folder: BenchFolder) throws -> Measured {
        let resultPath = folder.path("locust-\(fixes)fix.json")
        let process = try ChildProcess(
            executable,
            [
                "-f", locustfile, "--headless", "-u", "\(users)", "-r", "\(users)", "-t", "\(seconds)s",
                "--host", host, "--only-summary", "--exit-code-on-error", "0", "--fixes", "\(fixes)",
                "--ingest-path", path, "--beekon-result", resultPath,
            ],
            outputPath: folder.path("locust-\(fixes)fix.out"))
        let cpu = process.waitForExit()
        guard let data = FileManager.default.contents(atPath: resultPath) else {
            let tail = process.output().split(separator: "\n").suffix(15).joined(separator: "\n")
            throw CommandFailure(
                "locust (\(executable)) wrote no figures to \(resultPath); the end of its output:\n\(tail)")
        }
        return Measured(window: try LocustWindow.parse(data), wholeRunCPU: cpu)
    }
}
