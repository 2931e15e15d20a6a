import FleetRuntime
import Foundation

/// The process's open-file limit, which a fleet of stores and sockets needs raised.
public enum FileLimit {
    /// Raises the soft limit on open files to the hard limit; returns the limit now in force
    /// (0 when it cannot be read).
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        #if canImport(Glibc)
            let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
            let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(resource, &limit)
            _ = getrlimit(resource, &limit)
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to the hard one and refuses to start `command` (the program and its
    /// subcommand, e.g. `beekon-fleet run`; with the numbers and the fix, then `alternatives`) when
    /// that is still short of `budget`; returns the limit.
    @discardableResult
    public static func ensure(
        _ budget: DescriptorBudget, for command: String, alternatives: String = ""
    ) throws -> Int {
        let limit = raiseToHardLimit()
        // 0: the limit could not be read; the command runs and the transport names any EMFILE.
        guard limit > 0, let refusal = budget.refusal(command: command, limit: limit) else { return limit }
        throw CommandFailure(refusal + alternatives)
    }
}
