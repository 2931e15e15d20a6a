import FleetRuntime
import Testing

/// The descriptors a run needs and the stores it may keep open: the formula, as a table.
@Suite("Descriptor budget")
struct DescriptorBudgetTests {
    @Test(
        """
        a run needs its open-store floor × 3, its connections, \
        the admin's limit, the receiver's share and the margin
        """,
        arguments: [
            // devices, max connections, idle, admin, embedded receiver → needed
            (100, 256, 1024, 1024, true, 192 + 100 + 1025 + (100 + 64 + 1 + 3) + 64),
            (2000, 256, 1024, 1024, true, 192 + 1280 + 1025 + (1280 + 64 + 1 + 3) + 64),
            (10_000, 256, 1024, nil, false, 192 + 1280 + 64),
            (10_000, 0, 1024, nil, false, 192 + 10_000 + 64),  // 0: no cap, one connection a device
            (10, 4, 0, nil, false, 30 + 4 + 64),
            (0, 256, 1024, nil, false, 64),
        ] as [(Int, Int, Int, Int?, Bool, Int)])
    func needed(devices: Int, maxConnections: Int, idle: Int, admin: Int?, embedded: Bool, needed: Int) {
        let budget = DescriptorBudget.run(
            devices: devices, maxConnections: maxConnections, idleConnections: idle, adminConnections: admin,
            embeddedReceiver: embedded)
        #expect(budget.needed == needed)
    }

    @Test(
        "the stores left open: the floor, plus one for every three spare descriptors, at most 8192 and the devices",
        arguments: [
            // devices, limit → open stores (no admin, no receiver, 256 + 1024 connections)
            (10_000, 1536, 64),  // exactly what is needed: the floor
            (10_000, 1538, 64),
            (10_000, 1539, 65),
            (10_000, 20_000, 6218),
            (20_000, 40_000, 8192),
            (500, 20_000, 500),
            (10, 20_000, 10),
            (0, 20_000, 1),  // the pool keeps at least one
        ])
    func openStores(devices: Int, limit: Int, stores: Int) {
        let budget = DescriptorBudget.run(
            devices: devices, maxConnections: 256, idleConnections: 1024, adminConnections: nil, embeddedReceiver: false
        )
        #expect(budget.openStores(limit: limit) == stores)
    }

    @Test("the refusal names what is needed, part by part, the limit and the fix; none when the limit is enough")
    func refusal() throws {
        let budget = DescriptorBudget.run(
            devices: 2000, maxConnections: 256, idleConnections: 1024, adminConnections: 1024, embeddedReceiver: true)
        let text = try #require(budget.refusal(command: "beekon-fleet run", limit: 256))
        #expect(text.contains("beekon-fleet run of 2000 devices needs at least \(budget.needed) file descriptors"))
        #expect(
            text.contains("192 for 64 open stores (3 each), 1280 for upload connections, 1025 for the admin server"))
        #expect(text.contains("the open-file limit is 256"))
        #expect(text.contains("`ulimit -n \(budget.needed)`"))
        #expect(text.contains("`ulimits: nofile: \(budget.needed)`"))
        #expect(budget.refusal(command: "beekon-fleet run", limit: budget.needed) == nil)
        #expect(budget.refusal(command: "beekon-fleet run", limit: budget.needed - 1) != nil)
        #expect(DescriptorBudget.receive(connectionLimit: 8192).needed == 8193 + 3 + 64)
    }
}
