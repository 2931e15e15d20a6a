// Imported with @preconcurrency for C's `stdout`, a global var Swift 6 cannot prove safe: it is
// touched only here, once, before the command starts any thread.
#if canImport(Glibc)
    @preconcurrency import Glibc
#else
    @preconcurrency import Darwin
#endif

/// The command's standard output, where `print` writes.
enum StandardOutput {
    /// Flushes every line as it is printed, whatever standard output is: to a pipe (docker
    /// compose, a parent process) C would otherwise hold lines back until 4 KiB have gathered.
    /// Called first thing by `run` and `receive`.
    static func flushEachLine() {
        setvbuf(stdout, nil, _IOLBF, 0)
    }
}
