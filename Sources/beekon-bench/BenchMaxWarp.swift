import ArgumentParser
import BeekonDevice
import FleetCommandLine
import FleetDescription
import FleetRuntime
import Foundation
import IngestReceiver

/// `beekon-bench max-warp`: how fast virtual time goes at `--warp max`, the demo fleet
/// scaled to N devices against the in-process receiver.
struct BenchMaxWarp: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "max-warp",
        abstract:
            "Run the demo fleet, scaled to N devices, at --warp max against the in-process receiver; "
            + "print how fast virtual time went.",
        discussion: """
            Loads the demo fleet (fleets/demo.yaml), scales its groups in proportion to --devices \
            (at least one device each), fixes its clock.start at 2026-06-01T06:00:00Z so runs compare, \
            and runs it for --for of virtual time at --warp max with the reference receiver in-process, \
            stores and the receiver's database in --data (default: a temporary folder, removed after); \
            --doze has every group's Android phones doze when still. Prints the wall and CPU time, \
            virtual hours per wall minute, what a virtual week would take at that rate, fixes and \
            uploads per second, and whether any fix was lost or stored twice.
            """)

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    /// `--devices`: at least one per group of the demo fleet (three), at most a fleet file's group limit.
    static let devicesRange = NumberRange.integer(3...100_000, unit: "devices")

    @Option(
        help: "Devices, 3 to 100000 (the demo fleet's three groups, scaled in proportion).",
        transform: FlagNumber.integer(devicesRange))
    var devices = 1000

    @Option(
        name: .customLong("for"),
        help: ArgumentHelp("Virtual time to run, e.g. 2h or 7d (1ms to 366d).", valueName: "virtual-duration"),
        transform: FlagNumber.runLength)
    var virtualDuration: Int64 = 2 * 3_600_000

    @Option(help: "The data folder (stores and the receiver's database); default: a temporary folder, removed after.")
    var data: String?

    @Flag(help: "Every group's Android phones doze when still (`doze: {}`, AOSP's timing): what Doze costs.")
    var doze = false

    /// Where the scaled fleet's clock starts, whatever the demo fleet says (2026-06-01T06:00:00Z).
    static let startMillis: Int64 = 1_780_293_600_000

    func run() throws {
        var demo = try DemoRun.fleet(devices: devices)
        if doze {
            for index in demo.fleet.groups.indices { demo.fleet.groups[index].doze = .aosp }
        }
        let folder = try BenchFolder(data)
        defer { folder.remove() }
        let (runtime, receiver) = try DemoRun.start(
            demo, devices: devices, in: folder, warp: .max, virtualDuration: virtualDuration,
            for: "beekon-bench max-warp")
        defer { receiver.stop() }
        let cpuBefore = ProcessTimes.cpuSeconds()
        let started = DispatchTime.now().uptimeNanoseconds
        try runtime.run(progressEverySeconds: 86_400)
        let wall = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let cpu = ProcessTimes.cpuSeconds() - cpuBefore
        let metrics = runtime.metrics
        let stats = receiver.stats()
        let virtualHours = Double(virtualDuration) / 3_600_000
        let hoursPerMinute = virtualHours / (wall / 60)
        var report = BenchReport(title: "beekon-bench max-warp")
        report.add("devices", "devices", Double(metrics.devices), unit: "")
        report.add("doze_idles", "times a phone's Doze went idle", Double(metrics.dozeIdles), unit: "")
        report.add("virtual_hours", "virtual time run", virtualHours, unit: "h")
        report.add("wall_s", "wall time (stores made, run, drained)", wall, unit: "s")
        report.add("cpu_s", "CPU time, every thread", cpu, unit: "s")
        report.add("peak_rss_mib", "peak RSS", Double(ProcessMemory.peakResidentKiB()) / 1024, unit: "MiB")
        report.add("virtual_hours_per_minute", "virtual hours per wall minute", hoursPerMinute, unit: "h/min")
        report.add("week_minutes", "a virtual week at that rate", 168 / hoursPerMinute, unit: "min")
        report.add("fixes_stored", "fixes admitted and stored", Double(metrics.fixesStored), unit: "fixes")
        report.add(
            "fixes_per_s", "fixes admitted and stored per wall second", Double(metrics.fixesStored) / wall,
            unit: "fixes/s")
        report.add("uploads", "uploads", Double(metrics.sent.count), unit: "requests")
        report.add("receiver_fixes", "fixes the receiver stored", Double(stats.fixesStored), unit: "fixes")
        report.add(
            "pending", "fixes still on the devices at the end", Double(metrics.fixes.ledger.pending), unit: "fixes")
        report.add("duplicate_fixes", "fixes the receiver saw twice", Double(stats.duplicateFixes), unit: "fixes")
        report.add(
            "fixes_lost", "fixes lost (store failures)", Double(metrics.fixesLostByCause.values.reduce(0, +)),
            unit: "fixes")
        report.note(
            "digest \(metrics.sent.text) of \(metrics.sent.count) requests; the same --devices and --for "
                + "give the same one")
        report.note("data in \(folder.root)\(data == nil ? " (removed)" : "")")
        print(report.render(json: json))
    }

    /// Scales the fleet's groups to `total` devices in proportion to their counts (largest
    /// remainders first), at least one each.
    static func scale(_ fleet: inout FleetFile, to total: Int) {
        let counts = fleet.groups.map(\.count)
        let sum = max(counts.reduce(0, +), 1)
        var scaled = counts.map { max(1, $0 * total / sum) }
        var order = counts.indices.sorted { (counts[$0] * total) % sum > (counts[$1] * total) % sum }
        while scaled.reduce(0, +) < total, !order.isEmpty {
            scaled[order.removeFirst()] += 1
        }
        while scaled.reduce(0, +) > total, let largest = scaled.indices.max(by: { scaled[$0] < scaled[$1] }),
            scaled[largest] > 1
        {
            scaled[largest] -= 1
        }
        for index in fleet.groups.indices { fleet.groups[index].count = scaled[index] }
    }
}
