// beekon-store-probe PATH COUNT (or --out-of-descriptors PATH, below)
//
// A child process for the crash-durability test: opens the device store at PATH, stores COUNT
// fixes one by one (each its own commit), printing `committed N` after each, then waits to be
// killed. The fixes are made from fixed seeds, so the test can rebuild exactly what was written
// (`StoreProbeFixes` in the tests rebuilds them; fix i has timestamp base + i seconds).
import BeekonDevice
import BeekonStore
import Foundation

let arguments = CommandLine.arguments

// beekon-store-probe --out-of-descriptors PATH
//
// For the classification test: lowers the open-file limit, takes every descriptor left, then
// opens the store at PATH and prints `kind=KIND` and the error (or `opened`), exit status 0.
if arguments.count == 3, arguments[1] == "--out-of-descriptors" {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = min(limit.rlim_max, 64)
    guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
        FileHandle.standardError.write(Data("beekon-store-probe: setrlimit failed\n".utf8))
        exit(1)
    }
    // Bounded by the limit just set: open fails with EMFILE once every descriptor is taken.
    for _ in 0..<64 where open("/dev/null", O_RDONLY) >= 0 {}
    do {
        _ = try DeviceStore(path: arguments[2], retention: .syncing)
        print("opened")
    } catch {
        print("kind=\(error.kind.rawValue) \(error)")
    }
    exit(0)
}

// beekon-store-probe --upload PATH STEP
//
// For the process-death table: a Beekon device on the store at PATH. With STEP `relaunch` it
// restores the device from the store, calls sync() and drains every batch with a 2xx, printing
// `sent BATCH_ID FIX_ID,…` per upload and `pending N` at the end, exit status 0. With another
// STEP it is a new install that stores 7 fixes, calls sync() with batchSize 5, and SIGKILLs itself
// at STEP of the first upload, after printing `at STEP BATCH_ID FIX_ID,…`:
// - `beforeSend`: the batch was loaded and its id stored; the POST never left;
// - `afterSend`: the POST left (`sent …`) and the server took it; its 2xx dies with the process;
// - `after2xx`: the device heard the 2xx; the rows' delete had not run.
if arguments.count == 4, arguments[1] == "--upload" {
    UploadProbe(path: arguments[2], step: arguments[3]).run()
}

guard arguments.count == 3, let count = Int(arguments[2]), count >= 0 else {
    FileHandle.standardError.write(Data("usage: beekon-store-probe PATH COUNT\n".utf8))
    exit(2)
}
let path = arguments[1]
let baseMillis: Int64 = 1_700_000_000_000

/// Exits with `message` on standard error.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("beekon-store-probe: \(message)\n".utf8))
    exit(1)
}

// Kept open until the kill, so the test sees a process that died holding the store.
let store: DeviceStore
do {
    store = try DeviceStore(path: path, retention: .syncing)
} catch {
    fail("\(error)")
}
var random = SplitMix64(seed: 0x5EED)
var ids = UUIDv7Generator()
for index in 0..<count {
    let timestamp = baseMillis + Int64(index) * 1000
    guard
        let fix = Location(
            id: ids.next(atUnixMillis: timestamp, using: &random),
            latitude: 52.52 + Double(index) * 1e-4, longitude: 13.405,
            timestamp: timestamp, accuracy: 5, trigger: .interval, motion: .moving)
    else { fail("fix \(index) has non-finite coordinates") }
    do {
        try store.insert(fix, sessionID: "probe", now: timestamp)
    } catch {
        fail("\(error)")
    }
    print("committed \(index + 1)")
    // fflush(nil) flushes stdout without naming the C global, which Swift 6 rejects.
    fflush(nil)
}

// Wait to be killed: the test sends SIGKILL, so nothing after this point runs.
withExtendedLifetime(store) {
    while true {
        pause()
    }
}

/// The device and its store for `--upload`, carrying out the device's actions as the fleet does.
struct UploadProbe {
    static let steps = ["beforeSend", "afterSend", "after2xx", "relaunch"]
    static let config = BeekonConfig(
        minTimeBetweenLocationsSeconds: 0, minDistanceBetweenLocationsMeters: 0, whenStationary: .keepTracking,
        sync: SyncConfig(url: "https://ingest.test/locations", batchSize: 5))

    let path: String
    let step: String
    var now: Int64 = 1_700_000_000_000

    init(path: String, step: String) {
        guard Self.steps.contains(step) else { fail("step \(step) is not one of \(Self.steps)") }
        self.path = path
        self.step = step
    }

    func run() -> Never {
        var probe = self
        let store: DeviceStore
        do {
            store = try DeviceStore(path: path, retention: .syncing)
            let restored = try store.readDeviceState()
            var (device, actions) = Device.restore(
                platform: .android, restored: restored, pendingFixes: try store.pendingCount(), seed: 0xDEA7,
                now: probe.now)
            try probe.perform(actions, device: &device, store: store)
            if step == "relaunch" {
                try probe.perform(device.handle(.sync, at: probe.now), device: &device, store: store)
                print("pending \(try store.pendingCount())")
                exit(0)
            }
            actions = device.handle(.configure(Self.config), at: probe.now) + device.handle(.start, at: probe.now)
            for index in 0..<7 {
                probe.now += 1000
                let fix = OSFix(
                    latitude: 52.52 + Double(index) * 1e-3, longitude: 13.405, timestamp: probe.now, accuracy: 5)
                actions += device.handle(.osFix(fix), at: probe.now)
            }
            try probe.perform(actions + device.handle(.sync, at: probe.now), device: &device, store: store)
        } catch {
            fail("\(error)")
        }
        fail("the drain ended without reaching step \(step)")
    }

    /// Carries out `actions` in order; answers from the store and the server go back to the device.
    mutating func perform(_ actions: [DeviceAction], device: inout Device, store: DeviceStore) throws(StoreError) {
        var queue = actions[...]
        while let action = queue.popFirst() {
            var followUp: [DeviceAction] = []
            switch action {
            case .persistFix(let fix, let session): try store.insert(fix, sessionID: session, now: now)
            case .persistState(let changes): try store.writeState(changes)
            case .loadBatch(let limit, let resending):
                followUp = device.handle(.batchLoaded(try store.nextBatch(limit: limit, resending: resending)), at: now)
            case .sendBatch(let request):
                let line =
                    "\(request.payload.batchID) \(request.payload.locations.map(\.id.text).joined(separator: ","))"
                killed(at: "beforeSend", line)
                say("sent \(line)")
                killed(at: "afterSend", line)
                followUp = device.handle(
                    .uploadFinished(batchID: request.payload.batchID, .response(status: 200, body: [])), at: now)
            case .acknowledgeBatch(let batch, _):
                killed(at: "after2xx", "- \(batch.locations.map(\.id.text).joined(separator: ","))")
                try store.acknowledge(batch)
            case .dropBatch(let batch, _): try store.drop(batch)
            default: break
            }
            queue = followUp[...] + queue
        }
    }

    /// At `step`, says where and what the device held, and dies by SIGKILL: nothing after runs.
    func killed(at step: String, _ held: String) {
        guard step == self.step else { return }
        say("at \(step) \(held)")
        kill(getpid(), SIGKILL)
    }

    func say(_ line: String) {
        print(line)
        fflush(nil)
    }
}
