import BeekonDevice
import BeekonNet
import FleetTestSupport
import Foundation
import HTTPTypes
import Testing

@testable import FleetEngine
@testable import FleetRuntime

/// The fleet engine on the simulated driver: no sockets, no sleeps, no wall clock, so every
/// instant is exact and the same at any warp.
@Suite("Simulated driver: the network on virtual time")
struct SimulatedFleetTests {
    /// Three Android walkers (the `TransferTimingTests` fleet) on the simulated network.
    static func fleet(
        _ workspace: Workspace, warp: Int = 60, faults: String = "",
        timing: TransferTiming = .asAnswered,
        network: @escaping (SimulatedRequest) -> SimulatedAnswer
    ) throws -> SimulatedFleet {
        try SimulatedFleet(
            fleet: try workspace.fleet(Workspace.yaml(warp: warp, faults: faults)),
            options: RunOptions(
                dataDirectory: workspace.data, ingest: "http://ingest.invalid/ingest",
                routeFolder: workspace.folder.path,
                transferTiming: timing),
            network: network)
    }

    /// The uploads each device sent, in order.
    static func uploads(_ fleet: SimulatedFleet) -> [String: [SimulatedRequest]] {
        Dictionary(grouping: fleet.sent.filter { if case .upload = $0.kind { true } else { false } }, by: \.device)
    }

    /// The `locations` an upload carries, as JSON objects.
    static func locations(_ request: SimulatedRequest) throws -> [[String: Any]] {
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.http.body)) as? [String: Any])
        return try #require(body["locations"] as? [[String: Any]])
    }

    /// The fix ids an upload carries.
    static func locationIDs(_ request: SimulatedRequest) throws -> [String] {
        try locations(request).compactMap { $0["id"] as? String }
    }

    static func batchID(_ request: SimulatedRequest) -> String {
        guard case .upload(let id) = request.kind else { return "" }
        return id.text
    }

    @Test(
        """
        a hung upload is heard as timeout exactly 30 virtual s after its \
        send, and the same batch goes again 120 s later (60 s × 2¹)
        """
    )
    func hangThenTimeoutThenRetry() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var answered: Set<String> = []
        // At warp 1 a hang is the server's timeout: no answer within 30 s of real time.
        var fleet = try Self.fleet(workspace, warp: 1) { request in
            // Each device's first upload hangs; every later one is answered at once.
            answered.insert(request.device).inserted ? .hang : .ok
        }
        // Four minutes: the device's last 50 uploads (all it keeps) still hold the first.
        fleet.advance(byMillis: 4 * 60_000)
        let uploads = Self.uploads(fleet)
        #expect(uploads.count == 3)
        for (id, sent) in uploads {
            let device = try #require(fleet.engine.slots.first { $0.id == id })
            let first = try #require(sent.first)
            let heard = try #require(device.recent.uploads.elements.first)
            #expect(heard.outcome == .failed(.timeout))
            #expect(heard.at == first.sentAt + 30_000)
            #expect(heard.latencyMillis == 30_000)
            #expect(heard.serverMillis == nil, "a hung server has no answer time")
            let retry = try #require(sent.dropFirst().first)
            #expect(retry.sentAt == first.sentAt + 150_000)
            #expect(Self.batchID(retry) == Self.batchID(first), "the retry did not reuse the batch_id")
            #expect(try Self.locationIDs(retry) == Self.locationIDs(first), "the retry sent other fixes")
            #expect(device.recent.uploads.elements.dropFirst().first?.outcome == .status(200))
        }
        #expect(fleet.engine.metrics.batchesByOutcome[.failed(.timeout)] == 3)
    }

    @Test(
        "an injected 2 s latency is 2 virtual s at any warp: a 250 ms answer is heard 2,250 virtual ms after the send",
        arguments: [1, 60, 3000])
    func injectedLatencyIsVirtual(warp: Int) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults = """
            faults:
              - {at: 0s, for: 1h, select: all, action: latency, params: {ms: 2000}}
            """
        var fleet = try Self.fleet(workspace, warp: warp, faults: faults) { _ in .respond(status: 200, afterMillis: 250)
        }
        fleet.advance(byMillis: 5 * 60_000)
        let records = fleet.engine.slots.flatMap(\.recent.uploads.elements)
        #expect(records.count >= 3)
        for record in records {
            #expect(record.outcome == .status(200))
            #expect(record.latencyMillis == 2_250)
            // The server's own time is what 250 virtual ms is at this warp, without the injected 2 s.
            #expect(record.serverMillis == 250 / Double(warp))
        }
        // Heard when sent + 2,250: each record's instant is its request's send plus the latency.
        let sentAt = Dictionary(uniqueKeysWithValues: fleet.sent.map { (Self.batchID($0), $0.sentAt) })
        #expect(records.allSatisfy { $0.at == sentAt[$0.batchID.text].map { $0 + 2_250 } })
    }

    @Test(
        """
        a 503 whose Retry-After is an HTTP-date 10 minutes past its Date, both in November while the \
        fleet's clock is in June: the same batch goes again 10 virtual minutes later, not months
        """
    )
    func retryAfterDateOnTheServersClock() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var answered: Set<String> = []
        let headers = HTTPFields([
            HTTPField(name: .date, value: "Sat, 28 Nov 2026 18:00:00 GMT"),
            HTTPField(name: .retryAfter, value: "Sat, 28 Nov 2026 18:10:00 GMT"),
        ])
        var fleet = try Self.fleet(workspace) { request in
            answered.insert(request.device).inserted ? .respond(status: 503, headers: headers, afterMillis: 40) : .ok
        }
        fleet.advance(byMillis: 15 * 60_000)
        for (_, sent) in Self.uploads(fleet) {
            let (first, retry) = (try #require(sent.first), try #require(sent.dropFirst().first))
            #expect(Self.batchID(retry) == Self.batchID(first))
            #expect(retry.sentAt == first.sentAt + 40 + 600_000)
        }
    }

    @Test(
        """
        what the device heard is what is recorded: each status and \
        each network failure by its label, at the instant it came
        """,
        arguments: [
            (SimulatedAnswer.respond(status: 200, afterMillis: 40), 60, "200", 40),
            (.respond(status: 400, afterMillis: 40), 60, "400", 40),
            (.respond(status: 503, afterMillis: 1_000), 60, "503", 1_000),
            (.fail(.refused), 60, "refused", 0),
            (.fail(.reset, afterMillis: 700), 60, "reset", 700),
            (.fail(.dns, afterMillis: 5), 60, "dns", 5),
            (.fail(.tls, afterMillis: 90), 60, "tls", 90),
            (.fail(.tooManyOpenFiles), 60, "not-sent-descriptors", 0),
            // At warp 1 no answer within 30 s is the server's timeout; as answered at warp 60, only
            // the warp's: 30 virtual s is half a real second there.
            (.respond(status: 200, afterMillis: 30_000), 1, "timeout", 30_000),
            (.hang, 1, "timeout", 30_000),
            (.respond(status: 200, afterMillis: 30_000), 60, "warp-timeout", 30_000),
            (.hang, 60, "warp-timeout", 30_000),
        ] as [(SimulatedAnswer, Int, String, Int64)])
    func outcomesAsHeard(answer: SimulatedAnswer, warp: Int, label: String, latency: Int64) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try Self.fleet(workspace, warp: warp) { _ in answer }
        fleet.advance(byMillis: 60_000)
        let first = try #require(fleet.sent.first)
        let device = try #require(fleet.engine.slots.first { $0.id == first.device })
        let heard = try #require(device.recent.uploads.elements.first)
        #expect(heard.outcome.description == label)
        #expect(heard.at == first.sentAt + latency)
        #expect(heard.latencyMillis == Double(latency))
        #expect(fleet.engine.metrics.batchesByOutcome[heard.outcome, default: 0] >= 1)
        #expect(fleet.engine.metrics.uploads.overall[heard.outcome]?.count ?? 0 >= 1)
    }

    @Test(
        """
        a timeouts fault: the device hears timeout at +30 virtual s \
        though the server answered, and the server's time is kept
        """
    )
    func injectedTimeouts() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let faults = """
            faults:
              - {at: 0s, for: 1h, select: all, action: timeouts, params: {fraction: 1}}
            """
        var fleet = try Self.fleet(workspace, faults: faults) { _ in .respond(status: 200, afterMillis: 120) }
        fleet.advance(byMillis: 5 * 60_000)
        let records = fleet.engine.slots.flatMap(\.recent.uploads.elements)
        #expect(records.count >= 3)
        #expect(
            records.allSatisfy { $0.outcome == .injectedTimeout && $0.latencyMillis == 30_000 && $0.serverMillis == 2 }
        )
        #expect(
            fleet.engine.metrics.uploads.overall[.status(200)] == nil,
            "a transfer the device timed out was counted as 200")
    }

    @Test(
        """
        the same fleet file and seed send the same requests at the same \
        instants, at warp 1 and at warp 3000, timed as answered or modelled
        """
    )
    func sameRequestsAtAnyWarp() throws {
        let faults = """
            faults:
              - {at: 4m, for: 3m, select: {fraction: 0.5}, action: latency, params: {ms: 1500}}
              - {at: 9m, for: 2m, select: all, action: timeouts, params: {fraction: 0.5}}
              - {at: 12m, for: 2m, select: {fraction: 0.4}, action: networkOffline}
            """
        func run(warp: Int, timing: TransferTiming) throws -> (digest: RequestDigest, instants: [Int64]) {
            let workspace = try Workspace()
            defer { workspace.cleanUp() }
            var seen: Set<String> = []
            // Answers that depend only on the requests: each device's first upload is refused (503).
            var fleet = try Self.fleet(workspace, warp: warp, faults: faults, timing: timing) { request in
                seen.insert(request.device).inserted
                    ? .respond(status: 503, afterMillis: 100) : .respond(status: 200, afterMillis: 100)
            }
            fleet.advance(byMillis: 20 * 60_000)
            fleet.finish()
            return (fleet.engine.metrics.sent, fleet.sent.map(\.sentAt))
        }
        let first = try run(warp: 3000, timing: .asAnswered)
        #expect(first.digest.count > 20, "too few requests to compare: \(first.digest.count)")
        #expect(try run(warp: 3000, timing: .asAnswered) == first)
        #expect(try run(warp: 1, timing: .asAnswered) == first)
        // Modelled timing at 100 ms is the same network as answers that take 100 ms.
        let modelled = try run(warp: 60, timing: .deterministic)
        let split = modelled.instants.indices.first {
            $0 >= first.instants.count || modelled.instants[$0] != first.instants[$0]
        }
        #expect(
            modelled == first,
            """
            first difference at request \(split ?? -1): \
            \(split.map { (modelled.instants[$0], first.instants[$0]) } ?? (0, 0)), \
            counts \(modelled.instants.count) \(first.instants.count)
            """
        )
    }

    @Test(
        "admin spawns at 1 a second arrive 60 virtual s apart at warp 60, and a spawned device's first upload is exact")
    func spawnPacing() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var fleet = try Self.fleet(workspace) { _ in .ok }
        fleet.advance(byMillis: 1_000)
        let start = fleet.now
        let ids = try fleet.command { (engine) throws(FleetControlError) in
            try engine.spawn(SpawnRequest(template: .group("walkers"), count: 3, ratePerSecond: 1))
        }
        fleet.advance(byMillis: 5 * 60_000)
        let spawnedAt = ids.map { id in fleet.engine.slots.first { $0.id == id }?.world.setOffAt }
        #expect(spawnedAt == [start, start + 60_000, start + 120_000])
    }
}
