import FleetEngine
import FleetReport

/// `GET /metrics`: the fleet's counters in the Prometheus text format (version 0.0.4).
package enum PrometheusText {
    /// The histograms' `le` bounds, seconds: where `LatencyHistogram` counts exactly.
    static let latencyBounds: [Double] = LatencyHistogram.exactBoundsMillis.map { $0 / 1000 }

    /// The body `GET /metrics` answers (`package`: `beekon-bench metrics` times it). A shard of a
    /// fleet split over processes (`run --shard`) labels every sample with its `shard`, so
    /// Prometheus scraping them all adds them up (`sum without (shard)`) or tells them apart.
    package static func body(_ snapshot: FleetSnapshot, shard: Shard = .whole) -> [UInt8] {
        Array(render(snapshot, shard: shard).utf8)
    }

    static func render(_ snapshot: FleetSnapshot, shard: Shard = .whole) -> String {
        let text = samples(snapshot)
        guard shard != .whole else { return text }
        let label = "shard=\"\(shard.index)\""
        var labelled =
            "# HELP beekon_fleet_shard_info The shard of the fleet this process runs (run --shard).\n"
            + "# TYPE beekon_fleet_shard_info gauge\n"
            + "beekon_fleet_shard_info{\(label),shards=\"\(shard.count)\"} 1\n"
        labelled.reserveCapacity(text.utf8.count * 5 / 4)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") || line.isEmpty {
                labelled += line
            } else if let open = line.firstIndex(of: "{") {
                labelled += line[...open] + label + "," + line[line.index(after: open)...]
            } else if let space = line.firstIndex(of: " ") {
                labelled += line[..<space] + "{" + label + "}" + line[space...]
            } else {
                labelled += line
            }
            labelled += "\n"
        }
        // The split leaves one empty line after the text's last newline.
        labelled.removeLast()
        return labelled
    }

    /// The families and their samples, unlabelled by shard.
    private static func samples(_ snapshot: FleetSnapshot) -> String {
        let metrics = snapshot.metrics
        var text = ""
        func family(_ name: String, _ type: String, _ help: String) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        family("beekon_fleet_devices", "gauge", "Devices by tracking state (dead: the app's process is gone).")
        labelled("beekon_fleet_devices", "state", metrics.devicesByState, to: &text)
        // Per group (`sum without (group)` is the fleet's): the fix accounting, uploads and backlog.
        let groups = snapshot.groups.enumerated().map { index, name in
            (
                label: "group=\"\(escaped(name))\"",
                fixes: metrics.fixesByGroup.indices.contains(index) ? metrics.fixesByGroup[index] : FixAccount(),
                uploads: metrics.uploadsByGroup.indices.contains(index) ? metrics.uploadsByGroup[index] : GroupUploads()
            )
        }
        let counters: [(String, (FixAccount) -> Int, String)] = [
            ("admitted", \.ledger.admitted, "Fixes the devices' gates admitted this run (stored, or lost)."),
            ("acknowledged", \.ledger.acknowledged, "Fixes deleted after their batch was answered 2xx."),
            ("rejected", \.ledger.rejected, "Fixes dropped after their batch was answered 400 or 422."),
            ("expired", \.ledger.expired, "Fixes retention deleted (7 days local-only, or the 100,000-fix cap)."),
            ("deleted", \.ledger.deleted, "Fixes the app deleted (deleteLocations)."),
            ("uninstalled", \.ledger.uninstalled, "Fixes pending in an install's store when the app was uninstalled."),
        ]
        // Then the run's own counts (`FixAccount.counters`) that have a counter here.
        let own: [(String, (FixAccount) -> Int, String)] = FixAccount.counters.compactMap { counter in
            counter.metric.map { metric in (metric.name, { $0[keyPath: counter.value] }, metric.help) }
        }
        for (name, value, help) in counters + own {
            family("beekon_fleet_fixes_\(name)_total", "counter", help)
            for group in groups { text += "beekon_fleet_fixes_\(name)_total{\(group.label)} \(value(group.fixes))\n" }
        }
        family(
            "beekon_fleet_store_errors_total", "counter",
            "Device store failures by cause (full, tooManyOpenFiles, ioError, ...).")
        labelled("beekon_fleet_store_errors_total", "cause", metrics.storeErrorsByCause, to: &text)
        family(
            "beekon_fleet_fixes_lost_total", "counter",
            "Admitted fixes whose insert failed, by the store error's cause.")
        labelled("beekon_fleet_fixes_lost_total", "cause", metrics.fixesLostByCause, to: &text)
        family("beekon_fleet_geofence_events_lost_total", "counter", "Geofence events whose insert failed, by cause.")
        labelled("beekon_fleet_geofence_events_lost_total", "cause", metrics.geofenceEventsLostByCause, to: &text)
        family("beekon_fleet_pending_fixes", "gauge", "Fixes stored and not yet acknowledged.")
        for group in groups { text += "beekon_fleet_pending_fixes{\(group.label)} \(group.fixes.ledger.pending)\n" }
        family(
            "beekon_fleet_uploads_total", "counter",
            "Upload POSTs by outcome (status code, network failure, or offline: the device's network went "
                + "down while it was out).")
        for group in groups {
            for (outcome, tally) in group.uploads.byOutcome.sorted(by: { $0.key < $1.key }) {
                text +=
                    "beekon_fleet_uploads_total{\(group.label),outcome=\"\(escaped(outcome.description))\"} "
                    + "\(tally.count)\n"
            }
        }
        histogram(
            "beekon_fleet_upload_latency_seconds",
            "Upload latency as the devices lived it, per group: virtual time from send to the outcome heard "
                + "(injected latency and timeouts included).",
            groups.map { ($0.label + ",", $0.uploads.latency) }, to: &text)
        histogram(
            "beekon_fleet_upload_server_latency_seconds",
            "How long the server took to answer uploads, per group, real time (the same at any warp): every "
                + "answer, in time for the device or not.",
            groups.map { ($0.label + ",", $0.uploads.serverLatency) }, to: &text)
        family(
            "beekon_fleet_uploads_not_sent_total", "counter",
            "Uploads the fleet never put on the wire before their device gave up, by cause (connection-cap: "
                + "--max-connections; descriptors: out of file descriptors): the fleet's, not the server's.")
        for (cause, count) in metrics.notSentByCause {
            text += "beekon_fleet_uploads_not_sent_total{cause=\"\(cause.rawValue)\"} \(count)\n"
        }
        family(
            "beekon_fleet_requests_held_back_total", "counter",
            "Requests (uploads, token refreshes) the fleet's connection cap held back before they went out.")
        text += "beekon_fleet_requests_held_back_total \(metrics.heldBack)\n"
        family(
            "beekon_fleet_requests_cancelled_on_wire_total", "counter",
            "Requests on the wire the fleet closed because their device gave up on them (its timeout).")
        text += "beekon_fleet_requests_cancelled_on_wire_total \(metrics.cancelledOnWire)\n"
        family(
            "beekon_fleet_answers_after_timeout_total", "counter",
            "Server answers that came after the device's timeout had ended the transfer.")
        text += "beekon_fleet_answers_after_timeout_total \(metrics.answersAfterTimeout)\n"
        family(
            "beekon_fleet_answers_after_offline_total", "counter",
            "Server answers the device never heard because its network went down first (it heard offline).")
        text += "beekon_fleet_answers_after_offline_total \(metrics.answersAfterOffline)\n"
        family(
            "beekon_fleet_network_drops_total", "counter",
            "Times a device's network dropped under its flapping (a handover is counted apart).")
        text += "beekon_fleet_network_drops_total \(metrics.networkDrops)\n"
        family(
            "beekon_fleet_handovers_total", "counter",
            "Times a device's network handed over between Wi-Fi and cellular under its flapping.")
        text += "beekon_fleet_handovers_total \(metrics.handovers)\n"
        family(
            "beekon_fleet_oem_kills_total", "counter",
            "Apps a phone maker's battery manager killed (oemKills); WorkManager relaunched them.")
        text += "beekon_fleet_oem_kills_total \(metrics.oemKills)\n"
        family(
            "beekon_fleet_doze_idles_total", "counter",
            "Times a phone's Doze went idle: its apps lost the network until a maintenance window (doze).")
        text += "beekon_fleet_doze_idles_total \(metrics.dozeIdles)\n"
        family(
            "beekon_fleet_current_location_answers_total", "counter",
            "Answers to getCurrentLocation calls: fix, timedOut (none within the timeout), unavailable (permission "
                + "revoked or location services off).")
        let answers = metrics.currentLocation
        for (answer, count) in [
            ("fix", answers.fix), ("timedOut", answers.timedOut), ("unavailable", answers.unavailable),
        ] {
            text += "beekon_fleet_current_location_answers_total{answer=\"\(answer)\"} \(count)\n"
        }
        family(
            "beekon_fleet_warp", "gauge",
            "Virtual seconds per real second, as set, or at max warp the rate reached (virtual time stands "
                + "still while paused).")
        text += "beekon_fleet_warp \(snapshot.warp)\n"
        family(
            "beekon_fleet_max_warp", "gauge", "1 while the clock jumps from event to event (run --warp max), else 0.")
        text += "beekon_fleet_max_warp \(snapshot.maxWarp ? 1 : 0)\n"
        let pace = metrics.pace
        let window = "over the last \(PaceMeter.windowSeconds) real seconds"
        if let achieved = pace.achievedWarp {
            family(
                "beekon_fleet_achieved_warp", "gauge",
                "Virtual seconds advanced per real second \(window) (since the last warp change, pause or resume "
                    + "when more recent); absent until measured and while paused.")
            text += "beekon_fleet_achieved_warp \(achieved)\n"
        }
        family(
            "beekon_fleet_timer_lateness_p99_seconds", "gauge",
            "How late timers fired \(window), real seconds, 99th percentile (0 when none fired).")
        text += "beekon_fleet_timer_lateness_p99_seconds \(pace.timerLatenessP99Millis / 1000)\n"
        family(
            "beekon_fleet_timer_lateness_max_seconds", "gauge", "The latest timer \(window), real seconds.")
        text += "beekon_fleet_timer_lateness_max_seconds \(pace.timerLatenessMaxMillis / 1000)\n"
        family(
            "beekon_fleet_behind", "gauge",
            "1 while the run cannot keep up with the warp set (achieved warp below "
                + "\(Int(PaceMeter.behindFraction * 100))% of it, or timers' p99 lateness over "
                + "\(PaceMeter.latenessBoundMillis / 1000) s), else 0; never at max warp.")
        text += "beekon_fleet_behind \(pace.behind ? 1 : 0)\n"
        family("beekon_fleet_behind_seconds_total", "counter", "Real seconds the run has been behind its warp.")
        text += "beekon_fleet_behind_seconds_total \(pace.behindSeconds)\n"
        family(
            "beekon_fleet_answer_wait_seconds_total", "counter",
            "Real seconds the clock yielded to the server's answers (modelled timing) rather than falling behind.")
        text += "beekon_fleet_answer_wait_seconds_total \(pace.answerWaitSeconds)\n"
        family("beekon_build_info", "gauge", "1, labelled with this build's version.")
        text += "beekon_build_info{version=\"\(escaped(BuildInfo.version))\"} 1\n"
        let process = ProcessMetrics.current()
        family("process_cpu_seconds_total", "counter", "User and system CPU time spent, seconds.")
        text += "process_cpu_seconds_total \(process.cpuSeconds)\n"
        if let resident = process.residentBytes {
            family("process_resident_memory_bytes", "gauge", "Resident memory size, bytes.")
            text += "process_resident_memory_bytes \(resident)\n"
        }
        if let open = process.openDescriptors {
            family("process_open_fds", "gauge", "Open file descriptors.")
            text += "process_open_fds \(open)\n"
        }
        if let max = process.maxDescriptors {
            family("process_max_fds", "gauge", "The open file descriptor limit.")
            text += "process_max_fds \(max)\n"
        }
        if let started = process.startTimeSeconds {
            family("process_start_time_seconds", "gauge", "When the process started, Unix seconds.")
            text += "process_start_time_seconds \(started)\n"
        }
        return text
    }

    /// A histogram family of latencies kept in ms, with `latencyBounds` as its buckets: one
    /// histogram per entry of `series`, whose labels (each followed by a comma, or "") it names.
    static func histogram(
        _ name: String, _ help: String, _ series: [(labels: String, latency: LatencyHistogram)], to text: inout String
    ) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        for (labels, latency) in series {
            for bound in latencyBounds {
                text += "\(name)_bucket{\(labels)le=\"\(bound)\"} \(latency.count(atOrBelow: bound * 1000))\n"
            }
            text += "\(name)_bucket{\(labels)le=\"+Inf\"} \(latency.count)\n"
            let set = labels.isEmpty ? "" : "{\(labels.dropLast())}"
            text += "\(name)_sum\(set) \(latency.sum / 1000)\n"
            text += "\(name)_count\(set) \(latency.count)\n"
        }
    }

    /// One sample per entry of `counts`, labelled `label`, in label order.
    static func labelled<Value: CustomStringConvertible & Comparable>(
        _ name: String, _ label: String, _ counts: [Value: Int], to text: inout String
    ) {
        for (value, count) in counts.sorted(by: { $0.key < $1.key }) {
            text += "\(name){\(label)=\"\(escaped(value.description))\"} \(count)\n"
        }
    }

    /// A label value with `\`, `"` and newlines escaped.
    static func escaped(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
