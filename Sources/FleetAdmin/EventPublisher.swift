import FleetEngine
import FleetReport
import Foundation
import MicroHTTP
import Synchronization

/// Feeds `/api/v1/events`: one thread reads the fleet's snapshot four times a second, writes
/// each event once and queues the same bytes on every open stream. However many devices
/// change, a client gets a `fleet` event a second, a `devices` event at most four times a
/// second with at most 500 changes, an `uploads` event a second, and `action` and `sdk` events
/// as they happen. Actions, SDK stream values and device changes come from the loop's own logs
/// of them (numbered, read past the last number seen), never from comparing snapshots.
final class EventPublisher: Sendable {
    /// The largest `devices` event.
    static let maxChanges = 500

    private struct State {
        var streams: [EventStream] = []
        var stopped = false
    }

    private let runtime: any FleetControl
    private let state = Mutex(State())
    private let wakeup = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(runtime: any FleetControl) {
        self.runtime = runtime
        let thread = Thread { [self] in self.loop() }
        thread.name = "beekon-admin-events"
        thread.start()
    }

    /// Adds a client; it gets the fleet summary at once.
    func add(_ stream: EventStream) {
        stream.send(Array("retry: 2000\n\n".utf8) + Self.event(.fleet, FleetSummaryBody(runtime.snapshot)))
        state.withLock { $0.streams.append(stream) }
    }

    /// Ends every stream and the thread; idempotent.
    func stop() {
        let streams = state.withLock { state -> [EventStream]? in
            guard !state.stopped else { return nil }
            state.stopped = true
            defer { state.streams = [] }
            return state.streams
        }
        guard let streams else { return }
        for stream in streams { stream.close() }
        wakeup.signal()
        finished.wait()
    }

    /// The live events, each with the body its `data` line carries.
    enum Event: String, CaseIterable {
        case fleet, devices, uploads, action, sdk

        var body: any APIBody.Type {
            switch self {
            case .fleet: FleetSummaryBody.self
            case .devices: DevicesEventBody.self
            case .uploads: UploadsEventBody.self
            case .action: ActionEventBody.self
            case .sdk: StreamRecordBody.self
            }
        }
    }

    static func event(_ event: Event, _ body: some APIBody, capacity: Int = 1024) -> [UInt8] {
        Array("event: \(event.rawValue)\ndata: ".utf8) + APIJSON.bytes(body, capacity: capacity) + Array("\n\n".utf8)
    }

    private func loop() {
        var tick = 0
        /// The loop's change log read up to here; the changes read and not yet sent, by device.
        var lastChange: UInt64 = 0
        var waiting: [Int: DeviceChange] = [:]
        var missed = false
        var lastAction = runtime.snapshot.actions.last?.number ?? 0
        var lastStream = runtime.snapshot.streamEvents.last?.number ?? 0
        while true {
            _ = wakeup.wait(timeout: .now() + .milliseconds(250))
            let streams = state.withLock { state -> [EventStream]? in
                guard !state.stopped else { return nil }
                state.streams.removeAll { $0.isClosed }
                return state.streams
            }
            guard let streams else { break }
            tick += 1
            let snapshot = runtime.snapshot
            var bytes: [UInt8] = []
            // Actions: every one logged since the last tick.
            for record in snapshot.actions where record.number > lastAction {
                let body = ActionEventBody(action: record.action, applied: record.applied, at: APITime(record.at))
                bytes += Self.event(.action, body, capacity: 96)
            }
            lastAction = max(lastAction, snapshot.actions.last?.number ?? 0)
            // Notable SDK stream values (sync retries and failures, auth changes) since the last tick.
            for record in snapshot.streamEvents where record.number > lastStream {
                bytes += Self.event(.sdk, StreamRecordBody(record, device: true), capacity: 160)
            }
            lastStream = max(lastStream, snapshot.streamEvents.last?.number ?? 0)
            // Device changes as the loop recorded them; a gap in the numbers means the log moved on
            // past some, and the event says its list may be stale (`truncated`).
            if let first = snapshot.deviceChanges.first, first.number > lastChange + 1 { missed = true }
            for change in snapshot.deviceChanges.changes(after: lastChange) { waiting[change.slot] = change }
            lastChange = max(lastChange, snapshot.deviceChanges.last?.number ?? 0)
            if !waiting.isEmpty || missed {
                bytes += devicesEvent(snapshot, waiting: &waiting, missed: missed)
                missed = false
            }
            if tick % 4 == 0 {
                bytes += Self.event(.fleet, FleetSummaryBody(snapshot))
                bytes += Self.event(.uploads, uploadsEvent(snapshot), capacity: 256)
            }
            guard !bytes.isEmpty, !streams.isEmpty else { continue }
            for stream in streams { stream.send(bytes) }
        }
        finished.signal()
    }

    /// The devices whose state, pending count or last outcome changed since the last event, in
    /// list order, at most `maxChanges`: the rest wait for the next (`truncated` says so).
    private func devicesEvent(_ snapshot: FleetSnapshot, waiting: inout [Int: DeviceChange], missed: Bool) -> [UInt8] {
        let sending = waiting.keys.sorted().prefix(Self.maxChanges)
        var changes: [DevicesEventBody.Change] = []
        for slot in sending {
            guard let change = waiting.removeValue(forKey: slot), slot < snapshot.devices.count,
                !snapshot.devices[slot].deleted
            else { continue }
            changes.append(
                DevicesEventBody.Change(
                    id: snapshot.devices[slot].id, state: change.listed.state.description,
                    pending: change.listed.pending, lastOutcome: change.listed.lastOutcome?.description))
        }
        let truncated = missed || !waiting.isEmpty
        guard !changes.isEmpty || truncated else { return [] }
        let body = DevicesEventBody(changes: changes, truncated: truncated ? .present(true) : .absent)
        return Self.event(.devices, body, capacity: 64 + changes.count * 80)
    }

    /// The last whole second's uploads.
    private func uploadsEvent(_ snapshot: FleetSnapshot) -> UploadsEventBody {
        let second = snapshot.realSecond == 0 ? 0 : snapshot.realSecond - 1
        let tallies = snapshot.metrics.uploads.window(from: second, through: second)
        var latency = LatencyHistogram()
        for tally in tallies.values { latency.merge(tally.latency) }
        return UploadsEventBody(
            byOutcome: APIMap(sorting: tallies.mapValues(\.count)),
            latencyMs: UploadsEventBody.Latency(
                p50: Rounding.millis(latency.percentile(0.5)), p95: Rounding.millis(latency.percentile(0.95)),
                p99: Rounding.millis(latency.percentile(0.99))))
    }

}
