import Foundation

/// The process's own figures, as Prometheus's client libraries export them under `process_*`:
/// CPU time, resident memory, open and allowed file descriptors, start time. Read from the OS
/// at each scrape (Linux: `getrusage`, `/proc/self/statm`, `/proc/self/fd`, `getrlimit`).
struct ProcessMetrics: Sendable {
    var cpuSeconds: Double
    var residentBytes: Int?
    var openDescriptors: Int?
    var maxDescriptors: Int?
    var startTimeSeconds: Double

    /// When this process started, Unix seconds (close enough: when the admin module loaded).
    static let started = Date().timeIntervalSince1970

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
