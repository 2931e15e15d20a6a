import BeekonDevice
import FleetDescription
import FleetEngine

/// The end-of-run summary `run` prints, in a terminal's width, from the report itself, so the
/// two never disagree (k6's end-of-test summary is the model).
package enum RunSummary {
    /// The summary's lines: the run, then the fleet's figures, then each group's.
    package static func lines(_ report: RunReportBody) -> [String] {
        var lines: [String] = []
        let span =
            Timestamp.text(unixMillis: report.startedAt.unixMillis) + " → "
            + Timestamp.text(unixMillis: report.virtualTime.unixMillis)
        var head =
            "summary of \"\(report.name)\": \(span) (\(duration(report.virtualSeconds * 1000)) virtual, "
            + "\(report.realSeconds) s real"
        if let ended = report.endedBy {
            switch ended {
            case .stopped: head += "; stopped"
            case .thresholdAbort: head += "; aborted by `\(report.abortedBy ?? "")`"
            case .wallClockLimit: head += "; ended by the wall-clock limit"
            case .virtualTimeLimit: head += "; ended by the virtual-time limit"
            }
        }
        lines.append(head + ")")
        lines += figures(
            devices: report.devices, devicesByState: report.devicesByState, fixes: report.fixes,
            lostByCause: report.lostByCause, fixAge: report.fixAgeMs, uploads: report.uploads,
            realSeconds: report.realSeconds, latency: report.latencyMs, serverLatency: report.serverLatencyMs,
            timing: report.timing, duplicates: report.duplicates, indent: "  ")
        if let health = healthLine(report.fleetHealth) {
            lines.append("  fleet health \(String(repeating: ".", count: 6)) \(health)")
        }
        if report.fleetHealth.answerWaitSeconds > 0 {
            lines.append(
                "  answer wait \(String(repeating: ".", count: 7)) the clock waited "
                    + "\(duration(report.fleetHealth.answerWaitSeconds * 1000)) real for the server's answers "
                    + "(modelled timing yields to the server rather than falling behind)")
        }
        for fault in report.faults {
            let until = fault.endsAt.map { " until \(Timestamp.text(unixMillis: $0.unixMillis))" } ?? ""
            lines.append(
                "  fault \(String(repeating: ".", count: 13)) \(fault.fault) "
                    + "(\(Self.named(fault.action, fault.source))) at "
                    + "\(Timestamp.text(unixMillis: fault.startedAt.unixMillis))\(until), "
                    + "on \(count(fault.applied)) devices"
            )
        }
        for drain in report.drains {
            let backlog = "\(count(drain.pendingAtEnd)) pending at its end, \(count(drain.pendingBefore)) before it"
            let took =
                switch drain.drainMs {
                case nil: "still draining (\(backlog))"
                case 0? where drain.pendingAtEnd <= drain.pendingBefore: "nothing to drain (\(backlog))"
                case let millis?: "drained in \(duration(Double(millis))) (\(backlog))"
                }
            lines.append(
                "  drain \(String(repeating: ".", count: 13)) fault \(drain.fault) "
                    + "(\(Self.named(drain.action, drain.source))) ended "
                    + "\(Timestamp.text(unixMillis: drain.endedAt.unixMillis)): \(took)")
        }
        if let pace = paceLine(report.pace) { lines.append("  pace \(String(repeating: ".", count: 14)) \(pace)") }
        if report.groups.entries.count > 1 {
            for (name, group) in report.groups.entries {
                lines.append("  group \"\(name)\":")
                lines += figures(
                    devices: group.devices, devicesByState: group.devicesByState, fixes: group.fixes, lostByCause: nil,
                    fixAge: group.fixAgeMs, uploads: group.uploads, realSeconds: report.realSeconds,
                    latency: group.latencyMs, serverLatency: group.serverLatencyMs, timing: report.timing,
                    duplicates: group.duplicates, indent: "    ")
            }
        }
        return lines
    }

    private static func figures(
        devices: Int, devicesByState: APIMap<Int>, fixes: FixesBody.Ledger, lostByCause: APIMap<Int>?,
        fixAge: PercentilesBody, uploads: RunReportBody.Uploads, realSeconds: Double,
        latency: PercentilesBody, serverLatency: PercentilesBody, timing: TimingBody,
        duplicates: RunReportBody.Duplicates, indent: String
    ) -> [String] {
        // Labels padded with dots to one column, as k6's summary.
        let width = 18
        func row(_ label: String, _ text: String) -> String {
            indent + label + " " + String(repeating: ".", count: max(3, width - label.count)) + " " + text
        }
        var lines: [String] = []
        let states = devicesByState.entries.map { "\($0.key) \(count($0.value))" }.joined(separator: ", ")
        lines.append(row("devices", "\(count(devices))" + (states.isEmpty ? "" : ": \(states)")))
        lines.append(
            row(
                "fixes",
                "carried over \(count(fixes.carriedOver)) + admitted \(count(fixes.admitted)) = acknowledged "
                    + "\(count(fixes.acknowledged)) + rejected \(count(fixes.rejected)) + pending "
                    + "\(count(fixes.pending)) + expired \(count(fixes.expired)) + deleted \(count(fixes.deleted)) "
                    + "+ lost \(count(fixes.lost))"
                    + (fixes.uninstalled == 0 ? "" : " + uninstalled \(count(fixes.uninstalled))")))
        var verdict: String
        if fixes.unaccounted != 0 {
            verdict =
                "\(count(fixes.unaccounted)) fixes the devices handed to their stores are unaccounted for (a store "
                + "that never opened, or a miscount)"
        } else if fixes.lost == 0 {
            verdict = "every admitted fix is accounted for; none was lost"
        } else {
            verdict = "every admitted fix is accounted for; \(count(fixes.lost)) lost"
            if let causes = lostByCause, !causes.entries.isEmpty {
                verdict += " (" + causes.entries.map { "\($0.key) \(count($0.value))" }.joined(separator: ", ") + ")"
            }
        }
        lines.append(indent + String(repeating: " ", count: width + 2) + verdict)
        lines.append(
            row("fix age at ack", fixes.acknowledged == 0 ? "no fix acknowledged" : percentiles(fixAge, duration)))
        lines.append(row("backlog", "\(count(fixes.pending)) pending now, peak \(count(fixes.maxPending))"))
        let unheard = (batches: duplicates.count("unheardBatches"), fixes: duplicates.count("unheardFixes"))
        var resent =
            unheard.batches == 0
            ? "none caused by the fleet"
            : "\(count(unheard.batches)) batches (\(count(unheard.fixes)) fixes) answered 2xx unheard, sent again"
        if let batches = duplicates.receiverBatches, let fixes = duplicates.receiverFixes {
            resent += "; the receiver saw \(count(batches)) duplicate batches, \(count(fixes)) fixes"
        }
        lines.append(row("duplicates", resent))
        let rate = realSeconds > 0 ? String(format: " (%.1f/s)", Double(uploads.total) / realSeconds) : ""
        let outcomes = uploads.byOutcome.entries.map { key, outcome in
            "\(key) \(count(outcome.count)) (\(String(format: "%.1f", outcome.rate * 100)) %)"
        }.joined(separator: "  ")
        lines.append(row("uploads", "\(count(uploads.total))\(rate)" + (outcomes.isEmpty ? "" : ": \(outcomes)")))
        let heard = timing == .modelled ? "virtual, as heard; answers modelled" : "virtual, as heard: real × warp"
        lines.append(
            row(
                "upload latency",
                uploads.total == 0 ? "no upload heard" : percentiles(latency, millis) + " (\(heard))"))
        // Zeros when the server answered no upload (a real answer is never 0 ms).
        lines.append(
            row(
                "server latency",
                serverLatency.max == 0
                    ? "no upload answered" : percentiles(serverLatency, millis) + " (real: the server's own time)"))
        if let timeouts = timeoutsText(uploads) { lines.append(row("timeouts", timeouts)) }
        return lines
    }

    /// Uploads whose device heard its timeout, by whose it was: the server's, a fault's or the
    /// fleet's; nil when none did.
    static func timeoutsText(_ uploads: RunReportBody.Uploads) -> String? {
        let byOutcome = Dictionary(uniqueKeysWithValues: uploads.byOutcome.entries.map { ($0.key, $0.value.count) })
        let causes: [TransferOutcome] =
            [.failed(.timeout), .injectedTimeout, .warpTimeout]
            + TransferOutcome.NotSentCause.allCases.map { .notSent($0) }
        let counted = causes.compactMap { cause -> String? in
            guard let number = byOutcome[cause.description], number > 0 else { return nil }
            let whose =
                switch cause.party {
                case .server: "the server's"
                case .fault: "a fault"
                case .fleet: "the fleet's"
                }
            return "\(cause) \(count(number)) (\(whose))"
        }
        return counted.isEmpty ? nil : counted.joined(separator: ", ")
    }

    /// What the fleet itself did to its requests, said as the fleet's; nil when it did nothing.
    static func healthLine(_ health: FleetHealthBody) -> String? {
        var parts: [String] = []
        let notSent = health.notSent.entries.filter { $0.value > 0 }
        if !notSent.isEmpty {
            parts.append(
                "not sent \(count(notSent.reduce(0) { $0 + $1.value })) ("
                    + notSent.map { "\($0.key) \(count($0.value))" }.joined(separator: ", ") + ")")
        }
        if health.heldBack > 0 {
            let wait = health.connectionWaitMs
            parts.append(
                "held back \(count(health.heldBack)) by the connection cap (waited p99 \(millis(wait.p99)) "
                    + "max \(millis(wait.max)) real)")
        }
        if health.cancelledOnWire > 0 { parts.append("cancelled on the wire \(count(health.cancelledOnWire))") }
        if health.warpTimeouts > 0 { parts.append("warp-timeouts \(count(health.warpTimeouts))") }
        if health.behindSeconds > 0 { parts.append("behind its warp \(duration(health.behindSeconds * 1000)) real") }
        return parts.isEmpty ? nil : "the fleet's own, not the server's: " + parts.joined(separator: ", ")
    }

    /// Whether the run kept up with its warp: said once a warp was measured or the run was behind.
    static func paceLine(_ pace: RunReportBody.Pace) -> String? {
        let lowest = pace.minAchievedWarp.map { "lowest achieved warp \(FleetPace.rate($0))×" }
        guard pace.behindSeconds > 0 else { return lowest.map { "kept up with its warp (\($0))" } }
        return "behind its warp for \(duration(pace.behindSeconds * 1000)) real" + (lowest.map { " (\($0))" } ?? "")
    }

    private static func percentiles(_ values: PercentilesBody, _ text: (Double) -> String) -> String {
        "p50 \(text(values.p50))  p90 \(text(values.p90))  p99 \(text(values.p99))  max \(text(values.max))"
    }

    private static func millis(_ value: Double) -> String {
        value < 10 ? String(format: "%.2fms", value) : String(format: "%.0fms", value)
    }

    /// `850ms`, `12.5s`, `3m20.0s`, `2h05m00s`.
    static func duration(_ millis: Double) -> String {
        FleetDuration.display(millis: millis)
    }

    private static func count(_ value: Int) -> String { StoreErrorLog.grouped(value) }

    /// A fault's action, and where it came from when the API began it.
    private static func named(_ action: String, _ source: ActionSource) -> String {
        source == .api ? "\(action), from the API" : action
    }
}
