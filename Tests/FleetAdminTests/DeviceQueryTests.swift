import BeekonDevice
import Testing

@testable import FleetAdmin
@testable import FleetEngine

/// `GET /api/v1/devices`' sort, filters and pages over a made-up snapshot: each sort key orders
/// by its value, ties by id, either way round, and a deleted device is never listed.
@Suite("Admin API: the device list's query")
struct DeviceQueryTests {
    static func device(
        _ id: String, state: DeviceState = .sdk(.tracking), pending: Int = 0, lastUploadAt: Int64? = nil,
        deleted: Bool = false
    ) -> DeviceSnapshot {
        var device = StoreErrorJSONTests.device(id, storeError: nil)
        device.state = state
        device.pending = pending
        device.lastUploadAt = lastUploadAt
        device.deleted = deleted
        return device
    }

    /// Listed in an order no key has, one deleted.
    static var snapshot: FleetSnapshot {
        var snapshot = FleetSnapshot()
        snapshot.devices = [
            device("c", state: .dead, pending: 5, lastUploadAt: 300),
            device("a", pending: 9),
            device("e", state: .sdk(.idle), pending: 5, lastUploadAt: 100),
            device("b", state: .dead, pending: 1, lastUploadAt: 300),
            device("d", pending: 0, lastUploadAt: 200, deleted: true),
        ]
        return snapshot
    }

    static func ids(_ query: [String: String]) throws -> [String] {
        try DeviceQuery(query).page(of: snapshot).devices.map(\.id)
    }

    @Test(
        "each sort orders by its key, ties by id; - reverses the whole order",
        arguments: [
            ("id", ["a", "b", "c", "e"]),
            ("state", ["b", "c", "e", "a"]),
            ("pending", ["b", "c", "e", "a"]),
            ("lastUpload", ["a", "e", "b", "c"]),
        ] as [(String, [String])])
    func sorts(key: String, expected: [String]) throws {
        #expect(try Self.ids(["sort": key]) == expected)
        #expect(try Self.ids(["sort": "-" + key]) == expected.reversed())
    }

    @Test("a page is a window of the sorted matches; the cursor leads to the next one")
    func pages() throws {
        let first = try DeviceQuery(["sort": "pending", "limit": "3"]).page(of: Self.snapshot)
        #expect(first.devices.map(\.id) == ["b", "c", "e"] && first.total == 4)
        let next = try #require(first.next)
        let second = try DeviceQuery(["sort": "pending", "limit": "3", "cursor": next]).page(of: Self.snapshot)
        #expect(second.devices.map(\.id) == ["a"] && second.next == nil)
        #expect(try Self.ids(["state": "dead", "sort": "-pending"]) == ["c", "b"])
        #expect(try Self.ids(["q": "d"]).isEmpty)
    }
}
