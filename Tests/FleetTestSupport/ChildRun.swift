import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program to its end with `posix_spawn`, reading its standard output and error: what the
/// CLI tests need, without Foundation's `Process`, whose `run()` crashes now and then when this
/// process holds many descriptors (an over-read in `findMaximumOpenFromProcSelfFD`,
/// swift-corelibs-foundation #5472), as the suites running beside a CLI test do.
package enum ChildRun {
    package struct Result: Sendable {
        /// The exit status, or 128 + the signal that ended it.
        package var status: Int32
        package var output: String
        package var errors: String

        package init(status: Int32, output: String, errors: String) {
            self.status = status
            self.output = output
            self.errors = errors
        }
    }

    /// The `beekon-fleet` executable, built next to the test bundle.
    package static var fleetExecutable: String { built("beekon-fleet") }

    /// The package's executable `name` (`beekon-fleet`, `beekon-bench`), built next to the test bundle.
    package static func built(_ name: String) -> String {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return testBinary.deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// Runs `beekon-fleet ARGUMENTS` to its end, under `ulimit -n openFiles` when given, with
    /// `environment`'s variables set (a nil value unsets one, whatever the test's own says).
    package static func runFleet(
        _ arguments: [String], openFiles: Int? = nil, environment changes: [String: String?] = [:]
    ) async throws -> Result {
        var environment = ProcessInfo.processInfo.environment
        for (name, value) in changes { environment[name] = value }
        return if let openFiles {
            try await run(
                "/bin/bash", ["-c", "ulimit -n \(openFiles) && exec \"$0\" \"$@\"", fleetExecutable] + arguments,
                environment: environment)
        } else {
            try await run(fleetExecutable, arguments, environment: environment)
        }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which Swift's Glibc module
    /// does not declare: the child gets no descriptor of ours but its standard ones.
    private static let addCloseFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else { return nil }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

    /// Runs `executable` with `arguments` (and `environment`, else ours) to its end, waited for off
    /// the cooperative pool (see `offPool`): a child that runs for a minute must not hold one of
    /// the pool's two threads while other tests' awaits wait for it.
    package static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil
    ) async throws -> Result {
        try await offPool { try runBlocking(executable, arguments, environment: environment) }
    }

    /// `run`, on the calling thread: for code off the pool already (a thread of its own).
    package static func runBlocking(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil
    ) throws -> Result {
        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        guard pipe(&output) == 0, pipe(&errors) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        // Not inherited by other children (Swift's Glibc has no pipe2).
        for descriptor in output + errors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        _ = addCloseFrom?(&actions, 3)
        let argv = ([executable] + arguments).map { strdup($0) }
        defer { for argument in argv { free(argument) } }
        let environmentList = (environment ?? ProcessInfo.processInfo.environment).map {
            strdup("\($0.key)=\($0.value)")
        }
        defer { for entry in environmentList { free(entry) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, nil, argv + [nil], environmentList + [nil])
        close(output[1])
        close(errors[1])
        defer {
            close(output[0])
            close(errors[0])
        }
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        // Both read as they come, so neither pipe can fill while the other is waited on.
        var printed: [UInt8] = []
        var written: [UInt8] = []
        var open = [output[0], errors[0]]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty {
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), -1) >= 0 else {
                if errno == EINTR { continue }
                break
            }
            for entry in polled where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count <= 0 {
                    open.removeAll { $0 == entry.fd }
                } else if entry.fd == output[0] {
                    printed += buffer[..<count]
                } else {
                    written += buffer[..<count]
                }
            }
        }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as functions.
        let signal = status & 0x7f
        let exit = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        return Result(
            status: exit, output: String(decoding: printed, as: UTF8.self),
            errors: String(decoding: written, as: UTF8.self))
    }
}
