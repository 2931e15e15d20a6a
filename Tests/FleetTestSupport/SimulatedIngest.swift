import BeekonDevice
import FleetDescription
import FleetEngine
import FleetRuntime
import Foundation

/// The ingest server of a `SimulatedFleet`: answers each upload by a rule (told the request and
/// how many uploads its device sent before), and keeps every upload as it saw it, with what it
/// answered. The simulated network's counterpart of the reference receiver the real-driver tests
/// upload to (`IngestReceiver`, with its upload log): no socket, no thread.
package final class SimulatedIngest {
    /// What the rule is told about one upload.
    package struct Context {
        package var request: SimulatedRequest
        /// Uploads this device sent before this one, whatever they were answered.
        package var priorUploads: Int
    }

    /// One upload as the server saw it: the seed-05 body's fields the tests read.
    package struct Upload {
        package var request: SimulatedRequest
        package var answer: SimulatedAnswer
        package var installID: String
        package var batchID: String
        /// `sent_at`, Unix ms.
        package var sentAt: Int64
        /// `locations[].id`, in payload order.
        package var locationIDs: [String]
        /// `locations[].timestamp`, Unix ms, parallel to `locationIDs`.
        package var timestamps: [Int64]

        /// The device that sent it (`walkers-0001`).
        package var device: String { request.device }

        /// The status the server answered (nil for a failure or no answer).
        package var status: Int? {
            if case .respond(let status, _, _, _) = answer { status } else { nil }
        }

        /// The server answered 2xx: it took the batch, whatever the device then heard.
        package var accepted: Bool { (200..<300).contains(status ?? 0) }
    }

    package let rule: (Context) -> SimulatedAnswer
    /// Every upload, in the order it was sent.
    package private(set) var uploads: [Upload] = []
    /// Token refreshes (answered by the rule too, as a device's upload number 0).
    package private(set) var refreshes = 0
    /// Uploads whose body is not seed 05's shape, by what was wrong.
    package private(set) var malformed: [String] = []

    /// A server that answers by `rule` (200 at once unless told otherwise).
    package init(_ rule: @escaping (Context) -> SimulatedAnswer = { _ in .ok }) {
        self.rule = rule
    }

    /// The network function to give `SimulatedFleet`.
    package var network: (SimulatedRequest) -> SimulatedAnswer { { request in self.answer(request) } }

    package func answer(_ request: SimulatedRequest) -> SimulatedAnswer {
        guard case .upload = request.kind else {
            refreshes += 1
            return rule(Context(request: request, priorUploads: 0))
        }
        let prior = uploads.count { $0.device == request.device }
        let answer = rule(Context(request: request, priorUploads: prior))
        do {
            uploads.append(try Self.parse(request, answer: answer))
        } catch {
            malformed.append("\(request.device) #\(request.number): \(error.reason)")
        }
        return answer
    }

    /// The fix ids of every upload the server took, in order (an id taken twice is listed twice).
    package var acceptedLocationIDs: [String] { uploads.filter(\.accepted).flatMap(\.locationIDs) }

    /// The uploads of one device, in order.
    package func uploads(of device: String) -> [Upload] { uploads.filter { $0.device == device } }

    package struct Malformed: Error {
        package var reason: String
    }

    /// The upload in `request`'s body (uncompressed JSON: the driver gzips), checked for the
    /// seed-05 fields the tests read.
    package static func parse(_ request: SimulatedRequest, answer: SimulatedAnswer) throws(Malformed) -> Upload {
        guard let root = try? JSONSerialization.jsonObject(with: Data(request.http.body)) as? [String: Any] else {
            throw Malformed(reason: "the body is not a JSON object")
        }
        guard let device = root["device"] as? [String: Any], let installID = device["install_id"] as? String else {
            throw Malformed(reason: "device.install_id is missing")
        }
        guard let batchID = root["batch_id"] as? String, root["session_id"] is String else {
            throw Malformed(reason: "batch_id or session_id is missing")
        }
        guard let sentAtText = root["sent_at"] as? String, let sentAt = Timestamp.unixMillis(parsing: sentAtText) else {
            throw Malformed(reason: "sent_at is missing or not a timestamp")
        }
        guard let locations = root["locations"] as? [[String: Any]], root["geofence_events"] is [Any] else {
            throw Malformed(reason: "locations or geofence_events is missing")
        }
        var upload = Upload(
            request: request, answer: answer, installID: installID, batchID: batchID, sentAt: sentAt, locationIDs: [],
            timestamps: [])
        for location in locations {
            guard let id = location["id"] as? String, let text = location["timestamp"] as? String,
                let timestamp = Timestamp.unixMillis(parsing: text), location["trigger"] is String
            else {
                throw Malformed(reason: "a location lacks id, timestamp or trigger")
            }
            upload.locationIDs.append(id)
            upload.timestamps.append(timestamp)
        }
        return upload
    }
}

extension Workspace {
    /// The fleet in `yaml` on the simulated driver, in this workspace's data folder (or
    /// `dataDirectory`), uploading to `ingest`. Its answers take their simulated latency (timed as
    /// answered) unless the file chooses a timing: these tests state what a latency does.
    package func simulated(
        _ yaml: String, ingest: SimulatedIngest, dataDirectory: String? = nil, virtualMinutes: Int64? = nil
    ) throws -> SimulatedFleet {
        let fleet = try fleet(yaml)
        var options = RunOptions(
            dataDirectory: dataDirectory ?? data, ingest: "http://ingest.invalid/ingest",
            virtualDurationMillis: virtualMinutes.map { $0 * 60_000 }, routeFolder: folder.path)
        options.timing = Self.asAnsweredUnlessChosen(fleet)
        return try SimulatedFleet(fleet: fleet, options: options, network: ingest.network)
    }

    /// `as-answered` for a fleet file that leaves the timing to the warp (`auto`); nil (the file's)
    /// otherwise.
    package static func asAnsweredUnlessChosen(_ fleet: FleetFile) -> TimingChoice? {
        fleet.clock.timing == .auto && fleet.clock.warp != .max ? .asAnswered : nil
    }

    /// The fleet in `yaml` on the simulated driver, in this workspace's data folder, its transfers
    /// answered by `network` (every one `200` at once by default).
    package func simulated(
        _ yaml: String, timing: TransferTiming? = nil,
        network: @escaping (SimulatedRequest) -> SimulatedAnswer = { _ in .ok }
    ) throws -> SimulatedFleet {
        let fleet = try fleet(yaml)
        var options = RunOptions(
            dataDirectory: data, ingest: "http://ingest.invalid/ingest", routeFolder: folder.path,
            transferTiming: timing)
        options.timing = Self.asAnsweredUnlessChosen(fleet)
        return try SimulatedFleet(fleet: fleet, options: options, network: network)
    }
}

extension SimulatedFleet {
    /// The device `id`'s slot.
    package func slot(_ id: String) -> DeviceSlot? {
        engine.roster.slotsByID[id].map { engine.slots[$0] }
    }

    /// Every fix the device stores hold now, by id, with its timestamp (oldest first per device).
    package func storedFixes() throws -> [(device: String, id: String, timestamp: Int64)] {
        try engine.slots.flatMap { slot in
            try slot.storage.store.history(from: .min, to: .max).map { (slot.id, $0.id.text, $0.timestamp) }
        }
    }
}
