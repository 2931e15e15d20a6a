import Foundation

/// The machine a benchmark ran on, said with its figures: this machine is shared and noisy, so
/// a figure is read beside the load it was taken under.
enum BenchMachine {
    /// `2 cores, load 1.23 at the end`.
    static func note() -> String {
        var loads = [0.0, 0.0, 0.0]
        let load = getloadavg(&loads, 3) > 0 ? loads[0] : 0
        return "\(ProcessInfo.processInfo.activeProcessorCount) cores, " + String(format: "load %.2f at the end", load)
    }
}
