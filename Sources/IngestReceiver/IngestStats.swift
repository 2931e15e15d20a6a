import BeekonDevice

/// A snapshot of what the receiver has seen since it started (served as JSON at `/stats`).
public struct IngestStats: Sendable, Hashable {
    /// Answered requests, all paths, by HTTP status.
    public var requestsByStatus: [Int: Int] = [:]
    /// Uploads whose connection was closed without an answer (scripted `close`).
    public var closedWithoutAnswer = 0
    /// Uploads held without an answer (scripted `hang`).
    public var hung = 0
    /// Uploads answered 400 (or 413/415) for their body or headers.
    public var rejectedUploads = 0
    /// Uploads answered 401 by the token check.
    public var unauthorizedUploads = 0
    /// Batches stored with a `batch_id` not seen before.
    public var batchesStored = 0
    /// Uploads whose `batch_id` was already stored (acknowledged again, nothing stored twice).
    public var duplicateBatches = 0
    /// Of those, uploads that carried a row their batch's first sending did not (new, or
    /// stored under another `batch_id`): a retry that is not the batch it retries. The SDK
    /// never sends one; a server deduping on `batch_id` alone would lose or double rows.
    public var batchesChangedOnRetry = 0
    /// Locations (fixes) stored.
    public var fixesStored = 0
    /// Locations whose id was already stored.
    public var duplicateFixes = 0
    /// Of those, locations stored before under another `batch_id`: a fix sent again in
    /// another batch, stored twice by a server deduping on `batch_id` alone. The SDK never
    /// sends one (seed 05: "a retry carries the same batch_id").
    public var fixesInAnotherBatch = 0
    /// Geofence events stored.
    public var geofenceEventsStored = 0
    /// Geofence events whose id was already stored.
    public var duplicateGeofenceEvents = 0
    /// Of those, geofence events stored before under another `batch_id`.
    public var geofenceEventsInAnotherBatch = 0
    /// Tokens the token endpoint issued.
    public var tokensIssued = 0
    /// Distinct `(install_id, session_id)` pairs stored.
    public var sessions = 0
    /// When each device's last stored upload arrived, Unix milliseconds, by `install_id`.
    public var lastSeenByDevice: [String: Int64] = [:]
    /// Fix age at arrival (arrival wall time minus the fix timestamp), over the most recent fixes.
    public var fixAge = Percentiles()
    /// The receiver's own answer time for a stored upload, µs: from its whole body's arrival to
    /// its answer handed to the daemon (commit and scripted latency included), over the most
    /// recent uploads. What a client measures adds the network and its own queueing.
    public var answerMicros = Percentiles()
    /// Each batch's `sent_at` minus its first sending's arrival wall time, ms, signed, over the
    /// most recent batches: the phones' clock skew (less the upload's time on the way; at a warp
    /// above 1, plus how far the fleet's virtual clock has run ahead).
    public var clockSkew = Percentiles()
    /// Fixes stored whose `timestamp` is more than `futureSlackMillis` past their arrival: stamped
    /// by a clock running ahead.
    public var fixesFromFuture = 0

    /// Uploads whose connection ended before their body did (a client reset mid-body, or silent
    /// past the connection timeout): what arrived of them.
    public var truncatedUploads = TruncatedUploads()
    /// How fast upload bodies arrived, bytes a second (the body ÷ its first to last byte), over
    /// the most recent uploads whose body came in more than one read: a slow uplink as the
    /// server sees it.
    public var uploadBytesPerSecond = Percentiles()

    /// Uploads cut short, with their body bytes received and declared (`Content-Length`).
    public struct TruncatedUploads: Sendable, Hashable {
        public var count = 0
        public var receivedBytes = 0
        public var declaredBytes = 0
    }

    /// How far past its arrival a fix's `timestamp` may be before it counts as from the future, ms.
    public static let futureSlackMillis: Int64 = 1000

    /// Uploads read (their body decoded), by the client's address: the fleet's source addresses
    /// (`--source-addresses`) as a per-IP limiter or a load balancer hashing on the address sees
    /// them.
    public var sourceAddresses: [String: AddressFigures] = [:]
    /// Installs whose uploads came from more than one address.
    public var installsFromSeveralAddresses = 0
    /// Times an install's stored upload reported another `sdk_version` than its previous one
    /// (an app upgraded mid-run).
    public var sdkVersionChanges = 0

    /// What came from one client address.
    public struct AddressFigures: Sendable, Hashable {
        /// Uploads read from it.
        public var uploads = 0
        /// Distinct installs (`install_id`) among them.
        public var installs = 0
    }

    /// Distinct devices stored.
    public var devices: Int { lastSeenByDevice.count }

    /// Total answered requests.
    public var requests: Int { requestsByStatus.values.reduce(0, +) }

    /// Percentiles of a sample of milliseconds.
    public struct Percentiles: Sendable, Hashable {
        /// Samples the figures come from.
        public var count = 0
        /// The median, ms.
        public var p50: Int64 = 0
        /// The 95th percentile, ms.
        public var p95: Int64 = 0
        /// The 99th percentile, ms.
        public var p99: Int64 = 0
        /// The 1st and 5th percentiles, ms: the low tail of a signed figure (clock skew).
        public var p1: Int64 = 0
        public var p5: Int64 = 0

        /// Nearest-rank percentiles of `samples` (all zero when empty).
        public init(_ samples: [Int64] = []) {
            guard !samples.isEmpty else { return }
            let sorted = samples.sorted()
            func rank(_ fraction: Double) -> Int64 {
                let index = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
                return sorted[min(max(index, 0), sorted.count - 1)]
            }
            count = sorted.count
            p1 = rank(0.01)
            p5 = rank(0.05)
            p50 = rank(0.5)
            p95 = rank(0.95)
            p99 = rank(0.99)
        }

        /// The percentiles by quantile (`0.5`, …), the low tail's first when `lowTail`: what
        /// `/stats` writes as `pNN` and `/metrics` as `quantile="…"`.
        func quantiles(lowTail: Bool = false) -> [(quantile: String, key: String, value: Int64)] {
            (lowTail ? [("0.01", "p1", p1), ("0.05", "p5", p5)] : [])
                + [("0.5", "p50", p50), ("0.95", "p95", p95), ("0.99", "p99", p99)]
        }
    }

    /// The snapshot as the JSON `/stats` serves (keys documented in docs/receiver.md).
    public func json() -> [UInt8] {
        var json = JSONWriter()
        json.beginObject()
        json.key("requests")
        json.beginObject()
        json.key("total")
        json.integer(Int64(requests))
        json.key("by_status")
        json.beginObject()
        for (status, count) in requestsByStatus.sorted(by: { $0.key < $1.key }) {
            json.key("\(status)")
            json.integer(Int64(count))
        }
        json.endObject()
        for (key, value) in [
            ("closed_without_answer", closedWithoutAnswer), ("hung", hung), ("rejected", rejectedUploads),
            ("unauthorized", unauthorizedUploads),
        ] {
            json.key(key)
            json.integer(Int64(value))
        }
        json.endObject()
        for (key, stored, duplicate, conformance, errors) in [
            ("batches", batchesStored, duplicateBatches, "changed_on_retry", batchesChangedOnRetry),
            ("fixes", fixesStored, duplicateFixes, "in_another_batch", fixesInAnotherBatch),
            (
                "geofence_events", geofenceEventsStored, duplicateGeofenceEvents, "in_another_batch",
                geofenceEventsInAnotherBatch
            ),
        ] {
            json.key(key)
            json.beginObject()
            json.key("stored")
            json.integer(Int64(stored))
            json.key("duplicates")
            json.integer(Int64(duplicate))
            json.key(conformance)
            json.integer(Int64(errors))
            json.endObject()
        }
        json.key("devices")
        json.integer(Int64(devices))
        json.key("sessions")
        json.integer(Int64(sessions))
        json.key("tokens_issued")
        json.integer(Int64(tokensIssued))
        json.key("sdk_version_changes")
        json.integer(Int64(sdkVersionChanges))
        json.key("device_last_seen")
        json.beginObject()
        for (device, millis) in lastSeenByDevice.sorted(by: { $0.key < $1.key }) {
            json.key(device)
            json.timestamp(unixMillis: millis)
        }
        json.endObject()
        json.key("source_addresses")
        json.beginObject()
        json.key("distinct")
        json.integer(Int64(sourceAddresses.count))
        json.key("installs_from_several")
        json.integer(Int64(installsFromSeveralAddresses))
        json.key("by_address")
        json.beginObject()
        for (address, figures) in sourceAddresses.sorted(by: { $0.key < $1.key }) {
            json.key(address)
            json.beginObject()
            json.key("uploads")
            json.integer(Int64(figures.uploads))
            json.key("installs")
            json.integer(Int64(figures.installs))
            json.endObject()
        }
        json.endObject()
        json.endObject()
        func object(_ name: String, _ members: [(String, Int64)]) {
            json.key(name)
            json.beginObject()
            for (key, value) in members {
                json.key(key)
                json.integer(value)
            }
            json.endObject()
        }
        func percentiles(_ name: String, _ figures: Percentiles, lowTail: Bool = false) {
            object(
                name, [("count", Int64(figures.count))] + figures.quantiles(lowTail: lowTail).map { ($0.key, $0.value) }
            )
        }
        percentiles("fix_age_ms", fixAge)
        percentiles("answer_us", answerMicros)
        percentiles("clock_skew_ms", clockSkew, lowTail: true)
        json.key("fixes_from_future")
        json.integer(Int64(fixesFromFuture))
        object(
            "truncated_uploads",
            [
                ("count", Int64(truncatedUploads.count)), ("received_bytes", Int64(truncatedUploads.receivedBytes)),
                ("declared_bytes", Int64(truncatedUploads.declaredBytes)),
            ])
        percentiles("upload_bytes_per_second", uploadBytesPerSecond)
        json.endObject()
        return json.bytes
    }
}

extension IngestStats {
    /// The snapshot in the Prometheus text format (0.0.4), as `GET /metrics` serves it: the
    /// counters of `/stats` under `beekon_receiver_`, so one Prometheus scrapes the fleet and the
    /// server it loads.
    public func prometheusText() -> String {
        var text = ""
        func counter(_ name: String, _ help: String, _ value: Int) {
            text += "# HELP beekon_receiver_\(name) \(help)\n# TYPE beekon_receiver_\(name) counter\n"
            text += "beekon_receiver_\(name) \(value)\n"
        }
        text += "# HELP beekon_receiver_requests_total Answered requests, all paths, by HTTP status.\n"
        text += "# TYPE beekon_receiver_requests_total counter\n"
        for (status, count) in requestsByStatus.sorted(by: { $0.key < $1.key }) {
            text += "beekon_receiver_requests_total{status=\"\(status)\"} \(count)\n"
        }
        counter(
            "closed_without_answer_total", "Uploads closed without an answer (scripted close).", closedWithoutAnswer)
        counter("hung_total", "Uploads held without an answer (scripted hang).", hung)
        counter("rejected_uploads_total", "Uploads refused for their body or headers (400, 413, 415).", rejectedUploads)
        counter("unauthorized_uploads_total", "Uploads refused by the token check (401).", unauthorizedUploads)
        counter("batches_stored_total", "Batches stored with a batch_id not seen before.", batchesStored)
        counter("duplicate_batches_total", "Uploads whose batch_id was already stored.", duplicateBatches)
        counter(
            "batches_changed_on_retry_total", "Uploads re-using a stored batch_id for rows its first sending lacked.",
            batchesChangedOnRetry)
        counter("fixes_stored_total", "Fixes stored.", fixesStored)
        counter("duplicate_fixes_total", "Fixes whose id was already stored.", duplicateFixes)
        counter(
            "fixes_in_another_batch_total", "Fixes stored before under another batch_id (sent again in a new batch).",
            fixesInAnotherBatch)
        counter("geofence_events_stored_total", "Geofence events stored.", geofenceEventsStored)
        counter(
            "duplicate_geofence_events_total", "Geofence events whose id was already stored.", duplicateGeofenceEvents)
        counter(
            "geofence_events_in_another_batch_total", "Geofence events stored before under another batch_id.",
            geofenceEventsInAnotherBatch)
        counter("tokens_issued_total", "Tokens the token endpoint issued.", tokensIssued)
        counter(
            "sdk_version_changes_total", "Uploads of an install reporting another sdk_version than its previous one.",
            sdkVersionChanges)
        func gauge(_ name: String, _ help: String, _ lines: [(labels: String, value: String)]) {
            text += "# HELP beekon_receiver_\(name) \(help)\n# TYPE beekon_receiver_\(name) gauge\n"
            for line in lines { text += "beekon_receiver_\(name)\(line.labels) \(line.value)\n" }
        }
        // Gauges, not summaries: over the most recent samples only, with no running sum.
        func quantiles(_ name: String, _ help: String, _ figures: Percentiles, lowTail: Bool = false, scale: Double) {
            gauge(
                name, help,
                figures.quantiles(lowTail: lowTail).map {
                    ("{quantile=\"\($0.quantile)\"}", scale == 1 ? "\($0.value)" : "\(Double($0.value) / scale)")
                })
        }
        gauge("devices", "Distinct devices stored.", [("", "\(devices)")])
        gauge("source_addresses", "Distinct client addresses uploads came from.", [("", "\(sourceAddresses.count)")])
        gauge(
            "installs_from_several_addresses", "Installs whose uploads came from more than one address.",
            [("", "\(installsFromSeveralAddresses)")])
        quantiles("fix_age_seconds", "Fix age at arrival, over the most recent fixes.", fixAge, scale: 1000)
        quantiles(
            "clock_skew_seconds", "A batch's sent_at minus its arrival, over the most recent batches (signed).",
            clockSkew, lowTail: true, scale: 1000)
        counter(
            "fixes_from_future_total", "Fixes stored with a timestamp more than a second past their arrival.",
            fixesFromFuture)
        counter(
            "truncated_uploads_total", "Uploads whose connection ended before their body did (reset mid-body).",
            truncatedUploads.count)
        quantiles(
            "upload_bytes_per_second",
            "How fast upload bodies arrived, over the most recent uploads whose body came in more than one read.",
            uploadBytesPerSecond, scale: 1)
        return text
    }
}
