import Testing

@testable import FleetEngine

@Suite("What each device keeps of its recent past")
struct RecentCapacityTests {
    @Test(
        """
        each device keeps its last 50 uploads, state changes and stream values; in a fleet of more \
        than 40,000 devices, 2,000,000 ÷ devices of each, and never fewer than 10
        """,
        arguments: [
            (1, 50), (1_000, 50), (40_000, 50), (40_001, 49), (50_000, 40), (100_000, 20), (200_000, 10),
            (1_000_000, 10),
        ])
    func capacity(devices: Int, kept: Int) {
        #expect(DeviceRoster.recentCapacity(devices: devices) == kept)
    }
}
