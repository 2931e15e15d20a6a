import FleetDescription
import Testing

@testable import FleetEngine

/// `DozeCycle`, pure: AOSP's deep Doze on the instants a phone's motion is looked at.
@Suite("Doze: the cycle")
struct DozeCycleTests {
    /// Looks at a still phone each minute from 0 until `end` (minutes), under AOSP's numbers:
    /// the minutes at which the apps' network went (`-`) or came back (`+`).
    static func changes(until end: Int64, moving: (Int64) -> Bool = { _ in false }) -> [String] {
        var cycle = DozeCycle()
        var changes: [String] = []
        var time: Int64 = 0
        while time <= end * 60_000 {
            if cycle.look(moving: moving(time), at: time, .aosp) {
                changes.append("\(cycle.blocksNetwork ? "-" : "+")\(time / 60_000)")
            }
            time = cycle.nextLook(after: time, .aosp)
        }
        return changes
    }

    @Test(
        """
        a phone still from minute 0 goes idle at 30, has windows of 5 minutes after 1 h, 2 h, 4 h, \
        then every 6 h
        """
    )
    func aosp() {
        #expect(
            Self.changes(until: 1300) == [
                "-30", "+90", "-95", "+215", "-220", "+460", "-465", "+825", "-830", "+1190", "-1195",
            ])
    }

    @Test("moving ends Doze at once, and a still phone starts its count again")
    func motionEnds() {
        // Moving from minute 100 to 110: idle from 30, its window at 90, idle again at 95 until
        // the move; still from 111, idle again 30 minutes later.
        let changes = Self.changes(until: 200) { (100 * 60_000..<111 * 60_000).contains($0) }
        #expect(changes == ["-30", "+90", "-95", "+100", "-141"])
    }

    @Test("a phone that never stands still never dozes")
    func moving() {
        #expect(Self.changes(until: 600) { _ in true }.isEmpty)
    }
}
