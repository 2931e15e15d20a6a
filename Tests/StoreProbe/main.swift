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
