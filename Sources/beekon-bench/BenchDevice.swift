import ArgumentParser
import BeekonDevice
import FleetCommandLine

/// `beekon-bench device`: OS fixes per second through one device's pure state machines.
struct BenchDevice: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "OS fixes per second through one device's pure machines on one core.",
        discussion: """
            A tracking device (balanced preset, pause when stationary, sync on with a threshold) \
            is fed a precomputed walk of one fix a second, with stops; every action it returns \
            is counted. Lifecycle, stationary detection, gate, quality, triggers and the sync \
            planner all run; no I/O does.
            """)

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    /// `--fixes`.
    static let fixesRange = NumberRange.integer(1000...100_000_000, unit: "fixes")

    @Option(help: "How many OS fixes to feed, 1000 to 100000000.", transform: FlagNumber.integer(fixesRange))
    var fixes = 2_000_000

    func run() throws {
        let start: Int64 = 1_781_526_896_789
        var rng = SplitMix64(seed: 7)
        var latitude = 52.52
        var osFixes: [OSFix] = []
        osFixes.reserveCapacity(fixes)
        for index in 0..<fixes {
            // Walk for ten minutes, stand for five, and so on.
            if index % 900 < 600 { latitude += 1.4 / 111_195 }
            osFixes.append(
                OSFix(
                    latitude: latitude + Double.random(in: -0.000_03...0.000_03, using: &rng),
                    longitude: 13.405, timestamp: start + Int64(index) * 1000,
                    accuracy: Double.random(in: 4...40, using: &rng), speed: 1.4,
                    bearing: 0, altitude: 34))
        }
        var (device, _) = Device.restore(
            platform: .android, restored: PersistedDeviceState(), pendingFixes: 0, seed: 7, now: start)
        _ = device.handle(
            .configure(BeekonConfig(sync: SyncConfig(url: "https://ingest.test/l", syncThreshold: 1_000_000))),
            at: start)
        _ = device.handle(.start, at: start)
        var actions = 0
        var stored = 0
        let clock = ContinuousClock()
        let began = clock.now
        for fix in osFixes {
            for action in device.handle(.osFix(fix), at: fix.timestamp) {
                actions += 1
                if case .persistFix = action { stored += 1 }
            }
        }
        let seconds = (clock.now - began).seconds
        var report = BenchReport(title: "beekon-bench device")
        report.add("fixes_per_s", "OS fixes through one device", Double(fixes) / seconds, unit: "fixes/s")
        report.add("admitted_fixes", "fixes admitted and stored", Double(stored), unit: "fixes")
        report.add("actions", "actions returned", Double(actions), unit: "actions")
        print(report.render(json: json))
    }
}
