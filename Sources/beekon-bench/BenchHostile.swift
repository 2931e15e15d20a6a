import ArgumentParser
import BeekonNet
import FleetCommandLine
import Foundation
import Synchronization

/// `beekon-bench hostile`: the reference receiver under hostile load — gzip bombs and
/// thousands of idle connections — while a valid upload is sent; its memory and answer times.
struct BenchHostile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hostile",
        abstract: "Gzip bombs and idle connections against the receiver: its memory, a valid upload's latency.",
        discussion: """
            Runs `beekon-fleet receive` as a child process (its database in a temporary folder), \
            twice: (a) --bombs clients each POST a gzip body (about 61 KB) that inflates to \
            --bomb-mib MiB of JSON, all at once, and a valid 1-fix upload is sent meanwhile; \
            prints each bomb's status, the valid upload's status and latency, and the receiver's \
            peak resident memory (VmHWM of /proc/PID/status). (b) --idle connections are opened \
            and left idle, --per-address of them from each source address 127.0.0.2, \
            127.0.0.3, … (an attack comes from many addresses); then a valid upload is sent and \
            its latency printed. Raises the soft open-file limit to the hard one (the child \
            inherits it). --receive-arg passes a flag to the receiver. See docs/benchmarks.md.
            """)

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    @Option(help: "Gzip bombs sent at once.")
    var bombs = 4

    @Option(help: "MiB of JSON each bomb inflates to.")
    var bombMib = 60

    @Option(help: "Idle connections held open while the valid upload is sent.")
    var idle = 9000

    @Option(help: "Idle connections from each source address (127.0.0.2, 127.0.0.3, …).")
    var perAddress = 100

    @Option(help: "Seconds a request may take before the bench gives up on it.")
    var timeout = 120

    @Option(help: "An argument for `beekon-fleet receive` (repeatable), e.g. --receive-arg=--connection-timeout=5.")
    var receiveArg: [String] = []

    func validate() throws {
        guard (1...64).contains(bombs), (1...1024).contains(bombMib), (0...60_000).contains(idle),
            (1...60_000).contains(perAddress), (1...3600).contains(timeout)
        else {
            throw ValidationError(
                "--bombs 1…64, --bomb-mib 1…1024, --idle 0…60000, --per-address 1…60000, --timeout 1…3600.")
        }
        guard (idle + perAddress - 1) / perAddress <= 250 else {
            throw ValidationError("--idle / --per-address needs more than 250 source addresses; raise --per-address.")
        }
    }

    func run() throws {
        let openFiles = FileLimit.raiseToHardLimit()
        guard openFiles > idle + 256 else {
            throw CommandFailure(
                "beekon-bench hostile: \(idle) idle connections need more open files than the limit of \(openFiles); "
                    + "raise it (ulimit -Hn) or lower --idle.")
        }
        let folder = try BenchFolder(nil)
        defer { folder.remove() }
        var fixes = FixSource(seed: 2026)
        let valid = try GzipCompressor().compress(fixes.payload(fixes: 1).encoded())
        var report = BenchReport(title: "beekon-bench hostile")
        try measureBombs(folder: folder, valid: valid, report: &report)
        try measureIdle(folder: folder, valid: valid, report: &report)
        report.note(
            "receiver flags: \(receiveArg.isEmpty ? "defaults" : receiveArg.joined(separator: " ")); "
                + "\(ProcessInfo.processInfo.activeProcessorCount) cores, open-file limit \(openFiles)")
        print(report.render(json: json))
    }

    /// (a): the bombs at once, a valid upload meanwhile, the receiver's peak memory.
    func measureBombs(folder: BenchFolder, valid: [UInt8], report: inout BenchReport) throws {
        let receiver = try ReceiverChild(folder: folder.path("bombs"), arguments: receiveArg)
        defer { receiver.process.stop() }
        // An array of zeros: the JSON that costs a generic parser the most per inflated byte.
        var plain = Array(#"{"schema_version":1,"locations":["#.utf8)
        plain.reserveCapacity(bombMib << 20)
        while plain.count < (bombMib << 20) - 2 { plain.append(contentsOf: [UInt8(ascii: "0"), UInt8(ascii: ",")]) }
        plain.append(contentsOf: Array("0]}".utf8))
        let bomb = try GzipCompressor().compress(plain)
        plain = []
        let statuses = Mutex<[Int]>([])
        let group = DispatchGroup()
        let port = receiver.port
        for _ in 0..<bombs {
            DispatchQueue.global().async(group: group) {
                let answer = LoopbackHTTP.post(port: port, body: bomb, timeoutSeconds: timeout)
                statuses.withLock { $0.append(answer.status) }
            }
        }
        usleep(500_000)  // The bombs are on their way, or being inflated.
        let upload = LoopbackHTTP.post(port: receiver.port, body: valid, timeoutSeconds: timeout)
        group.wait()
        let peak = receiver.process.peakResidentKiB()
        let refused = statuses.withLock { $0 }.filter { $0 == 413 }.count
        report.add("bomb_gzip_bytes", "(a) each bomb: gzip bytes", Double(bomb.count), unit: "B")
        report.add("bombs_413", "    bombs answered 413", Double(refused), unit: "of \(bombs)")
        report.add("bomb_valid_status", "    valid upload meanwhile: status", Double(upload.status), unit: "")
        report.add("bomb_valid_latency_ms", "    valid upload meanwhile: latency", upload.seconds * 1000, unit: "ms")
        report.add("bomb_receiver_peak_rss_mib", "    receiver peak RSS (VmHWM)", Double(peak) / 1024, unit: "MiB")
        report.note(
            "(a) \(bombs) bombs of \(bombMib) MiB JSON each; their statuses: "
                + statuses.withLock { $0 }.map(String.init).joined(separator: ", "))
    }

    /// (b): `idle` connections open and silent, spread over source addresses, then a valid upload.
    func measureIdle(folder: BenchFolder, valid: [UInt8], report: inout BenchReport) throws {
        guard idle > 0 else { return }
        let receiver = try ReceiverChild(folder: folder.path("idle"), arguments: receiveArg)
        defer { receiver.process.stop() }
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        for index in 0..<idle {
            let source = "127.0.0.\(2 + index / perAddress)"
            let fd = LoopbackHTTP.connect(port: receiver.port, from: source, blocking: false)
            if fd >= 0 { sockets.append(fd) }
        }
        sleep(1)  // Let the receiver accept what it will.
        let upload = LoopbackHTTP.post(port: receiver.port, body: valid, timeoutSeconds: timeout)
        report.add("idle_connections", "(b) idle connections opened", Double(sockets.count), unit: "")
        report.add("idle_valid_status", "    valid upload meanwhile: status", Double(upload.status), unit: "")
        report.add("idle_valid_latency_ms", "    valid upload meanwhile: latency", upload.seconds * 1000, unit: "ms")
        report.add(
            "idle_receiver_peak_rss_mib", "    receiver peak RSS (VmHWM)",
            Double(receiver.process.peakResidentKiB()) / 1024, unit: "MiB")
        let last = 1 + (idle + perAddress - 1) / perAddress
        report.note("(b) \(idle) idle connections, \(perAddress) from each of 127.0.0.2…127.0.0.\(last)")
    }
}

extension ChildProcess {
    /// The child's peak resident memory in KiB; 0 once it is gone.
    func peakResidentKiB() -> Int {
        ProcessMemory.peakResidentKiB(of: String(pid))
    }
}
