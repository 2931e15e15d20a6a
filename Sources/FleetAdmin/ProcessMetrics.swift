import Foundation

/// The process's own figures, as Prometheus's client libraries export them under `process_*`:
/// CPU time, resident memory, open and allowed file descriptors, start time. Read from the OS
/// at each scrape (Linux: `getrusage`, `/proc/self/statm`, `/proc/self/fd`, `getrlimit`).
struct ProcessMetrics: Sendable {
    var cpuSeconds: Double
    var residentBytes: Int?
    var openDescriptors: Int?
    var maxDescriptors: Int?
    var startTimeSeconds: Double?

    /// When this process started, Unix seconds: the kernel's record of it (`/proc/self/stat`'s
    /// start time in clock ticks after boot, plus `/proc/stat`'s boot time), read once.
    static let started: Double? = {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            // The command name, in parentheses, may hold spaces: count fields after its end.
            let close = stat.lastIndex(of: ")"),
            let ticks = stat[stat.index(after: close)...].split(separator: " ").dropFirst(19).first.flatMap({
                Double($0)
            }),
            let boot = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8))?.split(separator: "\n")
                .first(where: { $0.hasPrefix("btime ") }).flatMap({ Double($0.dropFirst(6)) })
        else { return nil }
        return boot + ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }()

    static func current() -> ProcessMetrics {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
        // statm: size resident shared … in pages.
        let resident = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))
            .flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) }
            .map { $0 * Int(sysconf(Int32(_SC_PAGESIZE))) }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")).map(\.count)
        var limit = rlimit()
        let max = getrlimit(openFilesResource, &limit) == 0 ? Int(clamping: limit.rlim_cur) : nil
        return ProcessMetrics(
            cpuSeconds: cpu, residentBytes: resident, openDescriptors: open, maxDescriptors: max,
            startTimeSeconds: started)
    }

    private static let openFilesResource = Int32(RLIMIT_NOFILE.rawValue)
}
