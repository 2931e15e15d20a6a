import FleetCommandLine
import Foundation

/// A program a benchmark runs beside itself (nginx, wrk, `beekon-fleet receive`), its output in
/// a file, its CPU time read from /proc, and ended by its own process id.
///
/// Reaped by us with `waitpid` (not Foundation's `Process`, which reaps on its own thread), so an
/// exited child's /proc entry can still be read before it goes.
final class ChildProcess {
    let pid: pid_t
    let executable: String
    /// Where its standard output and error go.
    let outputPath: String
    private var exited = false

    /// Starts `executable` with `arguments`, standard output and error into `outputPath` (standard
    /// error into `errorPath` instead when given), standard input from the descriptor `input` when
    /// given (the child gets its own copy; the caller closes `input`).
    init(
        _ executable: String, _ arguments: [String], outputPath: String, errorPath: String? = nil,
        input: Int32? = nil
    ) throws {
        self.executable = executable
        self.outputPath = outputPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input { posix_spawn_file_actions_adddup2(&actions, input, 0) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let errorPath {
            posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        let argv = ([executable] + arguments).map { strdup($0) }
        defer { for argument in argv { free(argument) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, nil, argv + [nil], environ)
        guard status == 0 else {
            throw CommandFailure("could not start \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
    }

    /// Ends the child (SIGTERM, then SIGKILL after 5 s) if it is still running.
    deinit {
        stop()
    }

    /// The first directory of `PATH` (then `extraDirectories`) that holds an executable `name`.
    static func find(_ name: String, extraDirectories: [String] = []) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init) + extraDirectories
        return directories.map { $0 + "/" + name }.first { access($0, X_OK) == 0 }
    }

    /// What the child has written so far.
    func output() -> String {
        (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    /// CPU seconds (user + system) of the child and of its own children (nginx's workers),
    /// from /proc/PID/stat; 0 once it is gone.
    func cpuSeconds() -> Double {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var total = Self.stat(of: pid).map { $0.cpu } ?? 0
        for entry in entries {
            guard let other = pid_t(entry), other != pid, let stat = Self.stat(of: other), stat.parent == pid else {
                continue
            }
            total += stat.cpu
        }
        return total
    }

    /// Waits until the child exits on its own; returns its CPU seconds, read before it is reaped.
    @discardableResult
    func waitForExit() -> Double {
        guard !exited else { return 0 }
        var info = siginfo_t()
        // WNOWAIT leaves the child a zombie whose /proc/PID/stat still holds its final times.
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
        let cpu = cpuSeconds()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        exited = true
        return cpu
    }

    /// Waits until the child exits on its own and reaps it with `wait4`: its exit status (as
    /// `waitpid` gives it) and the kernel's account of it (`ru_maxrss` is its peak RSS in KiB, the
    /// times its CPU).
    func waitForExitWithUsage() -> (status: Int32, usage: rusage) {
        var status: Int32 = 0
        var usage = rusage()
        guard !exited else { return (status, usage) }
        while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
        exited = true
        return (status, usage)
    }

    /// Whether the child has exited (it is reaped if so).
    var hasExited: Bool {
        if exited { return true }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exited = true }
        return exited
    }

    /// Sends SIGTERM to this child's process id and reaps it; SIGKILL if it is still there
    /// after 5 s.
    func stop() {
        guard !exited else { return }
        kill(pid, SIGTERM)
        for _ in 0..<500 {
            if hasExited { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        waitForExit()
    }

    /// The parent and CPU seconds of process `pid`, from /proc/PID/stat.
    private static func stat(of pid: pid_t) -> (parent: pid_t, cpu: Double)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After "pid (comm)": state ppid pgrp session tty tpgid flags minflt cminflt majflt
        // cmajflt utime stime …
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let parent = pid_t(fields[1]), let user = Double(fields[11]),
            let system = Double(fields[12])
        else { return nil }
        return (parent, (user + system) / Double(sysconf(Int32(_SC_CLK_TCK))))
    }
}
