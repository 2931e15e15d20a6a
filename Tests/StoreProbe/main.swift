// beekon-store-probe PATH COUNT
//
// A child process for the crash-durability test: opens the device store at PATH, stores COUNT
// fixes one by one (each its own commit), printing `committed N` after each, then waits to be
// killed. The fixes are made from fixed seeds, so the test can rebuild exactly what was written
// (`StoreProbeFixes` in the tests rebuilds them; fix i has timestamp base + i seconds).
import BeekonDevice
import BeekonStore
import Foundation

let arguments = CommandLine.arguments
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
