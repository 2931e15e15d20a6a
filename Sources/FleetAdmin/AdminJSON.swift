import BeekonDevice
import FleetEngine

/// The admin API's JSON documents, written straight from a snapshot (see docs/openapi.yaml).
enum AdminJSON {
    /// `GET /api/v1/fleet`.
    static func fleet(_ snapshot: FleetSnapshot) -> [UInt8] {
        var json = JSONWriter(capacity: 1024)
        writeFleet(snapshot, to: &json)
        return json.bytes
    }

    static func writeFleet(_ snapshot: FleetSnapshot, to json: inout JSONWriter) {
        let metrics = snapshot.metrics
        var byPlatform: [String: Int] = [:]
        var byGroup: [String: Int] = [:]
        for device in snapshot.devices where !device.deleted {
            byPlatform[device.platform.rawValue, default: 0] += 1
            byGroup[device.group, default: 0] += 1
        }
        json.beginObject()
        json.key("name")
        json.string(snapshot.name)
        json.key("virtualTime")
        json.timestamp(unixMillis: snapshot.virtualNow)
        json.key("virtualTimeMillis")
        json.integer(snapshot.virtualNow)
        json.key("endsAt")
        optionalTime(snapshot.endsAt, to: &json)
        json.key("endsAtMillis")
        if let endsAt = snapshot.endsAt { json.integer(endsAt) } else { json.null() }
        json.key("warp")
        json.number(snapshot.warp)
        json.key("paused")
        json.bool(snapshot.paused)
        json.key("maxWarp")
        json.bool(snapshot.maxWarp)
        json.key("deterministic")
        json.bool(snapshot.deterministic)
        json.key("realSeconds")
        json.number((metrics.realSeconds * 10).rounded() / 10)
        json.key("devices")
        json.integer(Int64(metrics.devices))
        json.key("byState")
        counts(metrics.devicesByState, to: &json)
        json.key("byPlatform")
        counts(byPlatform, to: &json)
        json.key("byGroup")
        counts(byGroup, to: &json)
        json.key("groups")
        json.beginArray()
        for group in snapshot.groups { json.string(group) }
        json.endArray()
        json.key("fixes")
        fixes(metrics, to: &json)
        json.key("batches")
        json.beginObject()
        json.key("sent")
        json.integer(Int64(metrics.batchesSent))
        json.key("byOutcome")
        counts(metrics.batchesByOutcome, to: &json)
        json.endObject()
        json.key("store")
        json.beginObject()
        json.key("errors")
        counts(metrics.storeErrorsByCause, to: &json)
        json.key("fixesLost")
        counts(metrics.fixesLostByCause, to: &json)
        json.key("geofenceEventsLost")
        counts(metrics.geofenceEventsLostByCause, to: &json)
        json.endObject()
        json.endObject()
    }

    static func fixes(_ metrics: FleetMetrics, to json: inout JSONWriter) {
        json.beginObject()
        json.key("admitted")
        json.integer(Int64(metrics.fixesStored))
        json.key("uploaded")
        json.integer(Int64(metrics.fixesUploaded))
        json.key("pending")
        json.integer(Int64(metrics.pending))
        json.endObject()
    }

    static func counts<Key: CustomStringConvertible & Comparable>(_ map: [Key: Int], to json: inout JSONWriter) {
        json.beginObject()
        for (key, value) in map.sorted(by: { $0.key < $1.key }) {
            json.key(key.description)
            json.integer(Int64(value))
        }
        json.endObject()
    }

    static func optionalTime(_ millis: Int64?, to json: inout JSONWriter) {
        if let millis { json.timestamp(unixMillis: millis) } else { json.null() }
    }

    static func optionalString(_ text: String?, to json: inout JSONWriter) {
        if let text { json.string(text) } else { json.null() }
    }

    static func optionalNumber(_ value: Double?, to json: inout JSONWriter) {
        if let value { json.number(value) } else { json.null() }
    }

    /// A DeviceSummary's members (inside an object the caller opened).
    static func summaryMembers(_ device: DeviceSnapshot, to json: inout JSONWriter) {
        json.key("id")
        json.string(device.id)
        json.key("group")
        json.string(device.group)
        json.key("platform")
        json.string(device.platform.rawValue)
        json.key("model")
        json.string(device.model)
        json.key("installId")
        json.string(device.installID)
        json.key("state")
        json.string(device.state.description)
        json.key("alive")
        json.bool(device.alive)
        json.key("permission")
        json.string(device.permissionGranted ? "granted" : "revoked")
        json.key("locationServices")
        json.bool(device.locationServicesOn)
        json.key("network")
        json.string(device.online ? "online" : "offline")
        json.key("pending")
        json.integer(Int64(device.pending))
        json.key("lastOutcome")
        optionalString(device.lastOutcome?.description, to: &json)
        json.key("lastUploadAt")
        optionalTime(device.lastUploadAt, to: &json)
        json.key("latitude")
        optionalNumber(device.latitude, to: &json)
        json.key("longitude")
        optionalNumber(device.longitude, to: &json)
        json.key("storeError")
        if let problem = device.storeError {
            json.beginObject()
            json.key("cause")
            json.string(problem.cause)
            json.key("message")
            json.string(problem.message)
            json.key("since")
            json.timestamp(unixMillis: problem.since)
            json.endObject()
        } else {
            json.null()
        }
    }

    /// `GET /api/v1/devices`.
    static func deviceList(_ devices: ArraySlice<DeviceSnapshot>, total: Int, next: String?) -> [UInt8] {
        var json = JSONWriter(capacity: 512 + devices.count * 400)
        json.beginObject()
        json.key("devices")
        json.beginArray()
        for device in devices {
            json.beginObject()
            summaryMembers(device, to: &json)
            json.endObject()
        }
        json.endArray()
        json.key("total")
        json.integer(Int64(total))
        json.key("next")
        optionalString(next, to: &json)
        json.endObject()
        return json.bytes
    }

    /// `GET /api/v1/devices/{id}`.
    static func deviceDetail(_ device: DeviceSnapshot) -> [UInt8] {
        var json = JSONWriter(capacity: 4096)
        json.beginObject()
        summaryMembers(device, to: &json)
        json.key("config")
        if let config = device.config { RedactedConfig.write(config, to: &json) } else { json.null() }
        json.key("sync")
        json.beginObject()
        json.key("status")
        json.string(device.sync.phase.rawValue)
        json.key("consecutiveFailures")
        json.integer(Int64(device.sync.consecutiveFailures))
        json.key("nextAttemptAt")
        optionalTime(device.sync.nextAttemptAt, to: &json)
        json.endObject()
        json.key("auth")
        json.beginObject()
        json.key("state")
        json.string(device.auth.state.rawValue)
        json.key("validUntil")
        optionalTime(device.auth.validUntil, to: &json)
        json.key("lastRefreshOutcome")
        optionalString(device.auth.lastRefreshOutcome?.description, to: &json)
        json.key("breakerOpenUntil")
        optionalTime(device.auth.breakerOpenUntil, to: &json)
        json.endObject()
        json.key("stateHistory")
        json.beginArray()
        for change in device.stateHistory {
            json.beginObject()
            json.key("at")
            json.timestamp(unixMillis: change.at)
            json.key("state")
            json.string(change.state.description)
            json.key("cause")
            optionalString(change.cause?.rawValue, to: &json)
            json.endObject()
        }
        json.endArray()
        json.key("uploads")
        uploadRecords(device.uploads, to: &json)
        json.key("streams")
        json.beginArray()
        for record in device.streams.reversed() { stream(record, device: false, to: &json) }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    /// A value of a device's SDK stream: `{"at", "stream": "syncStatus", "status", …}` or
    /// `{"at", "stream": "authChanges", "change", …}`, with `device` for the live event.
    static func stream(_ record: StreamRecord, device: Bool, to json: inout JSONWriter) {
        json.beginObject()
        if device {
            json.key("device")
            json.string(record.device)
        }
        json.key("at")
        json.timestamp(unixMillis: record.at)
        switch record.value {
        case .syncStatus(let status):
            json.key("stream")
            json.string("syncStatus")
            json.key("status")
            switch status {
            case .idle: json.string("idle")
            case .inFlight: json.string("inFlight")
            case .succeeded(let count):
                json.string("succeeded")
                json.key("count")
                json.integer(Int64(count))
            case .retrying(let attempt, let nextAt):
                json.string("retrying")
                json.key("attempt")
                json.integer(Int64(attempt))
                json.key("nextAt")
                json.timestamp(unixMillis: nextAt)
            case .failed(let failure):
                json.string("failed")
                json.key("reason")
                json.string(failure.rawValue)
            }
        case .authChange(let change):
            json.key("stream")
            json.string("authChanges")
            json.key("change")
            switch change {
            case .seeded(let expiresAt):
                json.string("seeded")
                json.key("expiresAt")
                optionalTime(expiresAt, to: &json)
            case .refreshed(let expiresAt):
                json.string("refreshed")
                json.key("expiresAt")
                optionalTime(expiresAt, to: &json)
            case .deadCredentials:
                json.string("deadCredentials")
            case .breakerOpened(let until):
                json.string("breakerOpened")
                json.key("until")
                json.timestamp(unixMillis: until)
            }
        }
        json.endObject()
    }

    /// Most recent first.
    static func uploadRecords(_ uploads: [UploadRecord], to json: inout JSONWriter) {
        json.beginArray()
        for upload in uploads.reversed() {
            json.beginObject()
            json.key("at")
            json.timestamp(unixMillis: upload.at)
            json.key("batchId")
            json.string(upload.batchID)
            json.key("fixes")
            json.integer(Int64(upload.fixes))
            json.key("outcome")
            json.string(upload.outcome.description)
            json.key("latencyMs")
            json.number((upload.latencyMillis * 1000).rounded() / 1000)
            json.key("serverMs")
            optionalNumber(upload.serverMillis.map { ($0 * 1000).rounded() / 1000 }, to: &json)
            json.endObject()
        }
        json.endArray()
    }

    /// `GET /api/v1/devices/{id}/uploads`.
    static func uploads(_ device: DeviceSnapshot) -> [UInt8] {
        var json = JSONWriter(capacity: 4096)
        json.beginObject()
        json.key("uploads")
        uploadRecords(device.uploads, to: &json)
        json.endObject()
        return json.bytes
    }

    /// `GET /api/v1/devices/{id}/locations`: every row listed is still in the store, which
    /// deletes a fix once the server acknowledges it, so `uploaded` is false.
    static func locations(_ fixes: [Location]) -> [UInt8] {
        var json = JSONWriter(capacity: 256 + fixes.count * 200)
        json.beginObject()
        json.key("locations")
        json.beginArray()
        for fix in fixes {
            json.beginObject()
            json.key("id")
            json.uuid(fix.id)
            json.key("timestamp")
            json.timestamp(unixMillis: fix.timestamp)
            json.key("latitude")
            json.number(fix.latitude)
            json.key("longitude")
            json.number(fix.longitude)
            json.key("accuracy")
            optionalNumber(fix.accuracy, to: &json)
            json.key("speed")
            optionalNumber(fix.speed, to: &json)
            json.key("trigger")
            json.string(fix.trigger.rawValue)
            json.key("uploaded")
            json.bool(false)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    /// `{"applied": N, "ids": [...]}` for actions, `{"ids": [...]}` for spawns.
    static func ids(_ ids: [String], applied: Bool) -> [UInt8] {
        var json = JSONWriter(capacity: 64 + ids.count * 24)
        json.beginObject()
        if applied {
            json.key("applied")
            json.integer(Int64(ids.count))
        }
        json.key("ids")
        json.beginArray()
        for id in ids { json.string(id) }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    static func percentiles(
        _ histogram: LatencyHistogram, _ fractions: [(String, Double)], max: Bool, to json: inout JSONWriter
    ) {
        json.beginObject()
        for (name, fraction) in fractions {
            json.key(name)
            json.number((histogram.percentile(fraction) * 1000).rounded() / 1000)
        }
        if max {
            json.key("max")
            json.number((histogram.max * 1000).rounded() / 1000)
        }
        json.endObject()
    }

    static let statsPercentiles = [("p50", 0.5), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99)]

    /// `GET /api/v1/stats`.
    static func stats(_ snapshot: FleetSnapshot) -> [UInt8] {
        let window = UInt64(UploadStats.windowSeconds)
        let recent = snapshot.metrics.uploads.window(
            from: snapshot.realSecond + 1 >= window ? snapshot.realSecond + 1 - window : 0, through: snapshot.realSecond
        )
        let seconds = max(1, min(Double(window), snapshot.metrics.realSeconds))
        var json = JSONWriter(capacity: 2048)
        json.beginObject()
        json.key("outcomes")
        json.beginArray()
        var recentTotal = 0
        for (outcome, tally) in snapshot.metrics.uploads.overall.sorted(by: { $0.key < $1.key }) {
            let last = recent[outcome] ?? UploadStats.Tally()
            recentTotal += last.count
            json.beginObject()
            json.key("outcome")
            json.string(outcome.description)
            json.key("kind")
            json.string(outcome.isNetwork ? "network" : "status")
            json.key("count")
            json.integer(Int64(tally.count))
            json.key("ratePerSecond")
            json.number((Double(last.count) / seconds * 100).rounded() / 100)
            json.key("latencyMs")
            percentiles(tally.latency, statsPercentiles, max: true, to: &json)
            json.key("serverLatencyMs")
            percentiles(tally.serverLatency, statsPercentiles, max: true, to: &json)
            json.key("last10s")
            json.beginObject()
            json.key("count")
            json.integer(Int64(last.count))
            json.key("latencyMs")
            percentiles(last.latency, statsPercentiles, max: true, to: &json)
            json.key("serverLatencyMs")
            percentiles(last.serverLatency, statsPercentiles, max: true, to: &json)
            json.endObject()
            json.endObject()
        }
        json.endArray()
        json.key("fixes")
        fixes(snapshot.metrics, to: &json)
        json.key("uploadsPerSecond")
        json.number((Double(recentTotal) / seconds * 100).rounded() / 100)
        json.key("devicesByState")
        counts(snapshot.metrics.devicesByState, to: &json)
        json.endObject()
        return json.bytes
    }
}
