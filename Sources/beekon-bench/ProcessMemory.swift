/// What the kernel says about a process's memory.
enum ProcessMemory {
    /// This process's resident set size in KiB (`VmRSS` of /proc/self/status), or 0 where there is none.
    static func residentKiB() -> Int {
        status("VmRSS:", of: "self")
    }

    /// A process's peak resident set size in KiB (`VmHWM` of /proc/PID/status); 0 once it is gone.
    static func peakResidentKiB(of process: String = "self") -> Int {
        status("VmHWM:", of: process)
    }

    /// A KiB field of /proc/PROCESS/status, or 0 where there is none.
    private static func status(_ field: String, of process: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8) else {
            return 0
        }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
        }
        return 0
    }
}
