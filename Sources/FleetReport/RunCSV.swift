import BeekonDevice
import FleetEngine

/// `run --csv PREFIX`: the run as CSV files, as Locust's `--csv` writes them: `PREFIX_stats.csv`
/// (a row per group and upload outcome, and an `Aggregated` row per group and for the fleet),
/// `PREFIX_fixes.csv` (the fix accounting per group and for the fleet),
/// `PREFIX_stats_history.csv` (a row per 10 virtual seconds, coarser for long runs: see
/// `RunHistory`) and `PREFIX_fleet_health.csv` (what the fleet itself did, a row per figure).
/// Every duration's column says its clock: upload latency is virtual ms as the devices heard it,
/// the server's latency real ms.
package enum RunCSV {
    /// The files and their text, by suffix (`_stats.csv`, …).
    package static func files(_ snapshot: FleetSnapshot) -> [(suffix: String, text: String)] {
        [
            ("_stats.csv", stats(snapshot)), ("_fixes.csv", fixes(snapshot)), ("_stats_history.csv", history(snapshot)),
            ("_fleet_health.csv", fleetHealth(snapshot)),
        ]
    }

    /// Each group's figures and then the fleet's, named.
    private static func scopes(_ snapshot: FleetSnapshot) -> [(name: String, figures: RunFigures)] {
        snapshot.groups.enumerated().map { ($1, RunFigures(snapshot.metrics, group: $0)) }
            + [("Aggregated", RunFigures(snapshot.metrics))]
    }

    static func stats(_ snapshot: FleetSnapshot) -> String {
        var rows = [
            [
                "Group", "Outcome", "Kind", "Count", "Share", "Per Second", "Latency p50 (virtual ms)",
                "Latency p90 (virtual ms)", "Latency p95 (virtual ms)", "Latency p99 (virtual ms)",
                "Latency Max (virtual ms)", "Server Latency p50 (real ms)", "Server Latency p90 (real ms)",
                "Server Latency p95 (real ms)", "Server Latency p99 (real ms)", "Server Latency Max (real ms)",
            ]
        ]
        for (name, figures) in scopes(snapshot) {
            let total = figures.uploads.values.reduce(0) { $0 + $1.count }
            var all = LatencyHistogram()
            for (outcome, tally) in figures.uploads.sorted(by: { $0.key < $1.key }) {
                all.merge(tally.latency)
                rows.append(
                    [name, outcome.description, outcome.isNetwork ? "network" : "status"]
                        + counts(tally.count, of: total, seconds: figures.realSeconds) + percentiles(tally.latency)
                        + percentiles(tally.serverLatency))
            }
            // The server's over every upload it answered, heard in time or not (the outcomes' rows
            // count only the answers their devices heard).
            rows.append(
                [name, "Aggregated", ""] + counts(total, of: total, seconds: figures.realSeconds) + percentiles(all)
                    + percentiles(figures.serverLatency))
        }
        return text(rows)
    }

    static func fixes(_ snapshot: FleetSnapshot) -> String {
        var rows = [
            [
                "Group", "Carried Over", "Admitted", "Acknowledged", "Rejected", "Pending", "Expired", "Deleted",
                "Lost", "Uninstalled",
                "Unaccounted", "Max Pending", "Age at Ack p50 (ms)", "Age at Ack p90 (ms)", "Age at Ack p95 (ms)",
                "Age at Ack p99 (ms)", "Age at Ack Max (ms)",
            ] + FixAccount.counters.map(\.column)
        ]
        for (name, figures) in scopes(snapshot) {
            let fixes = figures.fixes
            let ledger = fixes.ledger
            rows.append(
                [name]
                    + [
                        fixes.carriedOver, ledger.admitted, ledger.acknowledged, ledger.rejected, ledger.pending,
                        ledger.expired, ledger.deleted, ledger.lost, ledger.uninstalled, fixes.unaccounted,
                        fixes.maxPending,
                    ].map(String.init)
                    + percentiles(fixes.ageAtAcknowledgement)
                    + FixAccount.counters.map { String(fixes[keyPath: $0.value]) })
        }
        return text(rows)
    }

    static func history(_ snapshot: FleetSnapshot) -> String {
        let history = snapshot.metrics.history
        var outcomes = Set<TransferOutcome>()
        for row in history.rows { outcomes.formUnion(row.outcomes.keys) }
        let columns = outcomes.sorted()
        var rows = [
            ["Timestamp", "Unix ms", "Seconds", "Uploads"] + columns.map { "Uploads \($0)" }
                + [
                    "Latency p50 (ms)", "Latency p99 (ms)", "Server Latency p50 (ms)", "Server Latency p99 (ms)",
                    "Fixes Admitted", "Fixes Acknowledged", "Fixes Pending",
                    "Age at Ack p50 (ms)", "Age at Ack p99 (ms)",
                ]
        ]
        let backlog = history.backlog
        // Rows up to the instant the run reached: a last, partial one included.
        let reached = Int((snapshot.virtualNow - history.start) / history.widthMillis)
        for (index, row) in history.rows.enumerated() where index <= reached {
            let start = history.start + Int64(index) * history.widthMillis
            let total = row.outcomes.values.reduce(0, +)
            rows.append(
                [
                    Timestamp.text(unixMillis: start), String(start), decimal(Double(history.widthMillis) / 1000),
                    String(total),
                ]
                    + columns.map { String(row.outcomes[$0] ?? 0) }
                    + [coarse(row.latency.percentile(0.5)), coarse(row.latency.percentile(0.99))]
                    + [coarse(row.serverLatency.percentile(0.5)), coarse(row.serverLatency.percentile(0.99))]
                    + [String(row.admitted), String(row.acknowledged), String(backlog[index])]
                    + [
                        coarse(row.ageAtAcknowledgement.percentile(0.5)),
                        coarse(row.ageAtAcknowledgement.percentile(0.99)),
                    ])
        }
        return text(rows)
    }

    /// The fleet's own doing, a row per figure with its unit and clock (`FleetHealthBody`).
    static func fleetHealth(_ snapshot: FleetSnapshot) -> String {
        let metrics = snapshot.metrics
        let wait = metrics.connectionWait
        var rows = [["Figure", "Value", "Unit"]]
        rows += metrics.notSentByCause.map { ["Not Sent \($0.key.rawValue)", String($0.value), "uploads"] }
        rows += [
            ["Held Back", String(metrics.heldBack), "requests"],
            ["Connection Wait p99", decimal(wait.percentile(0.99)), "real ms"],
            ["Connection Wait Max", decimal(wait.max), "real ms"],
            ["Cancelled on the Wire", String(metrics.cancelledOnWire), "requests"],
            ["Warp Timeouts", String(metrics.warpTimeouts), "uploads"],
            ["Answer Wait", decimal(metrics.pace.answerWaitSeconds), "real s"],
            ["Behind Its Warp", decimal(metrics.pace.behindSeconds), "real s"],
        ]
        return text(rows)
    }

    private static func counts(_ count: Int, of total: Int, seconds: Double) -> [String] {
        [
            String(count), total == 0 ? "0" : decimal(Double(count) / Double(total)),
            seconds > 0 ? decimal(Double(count) / seconds) : "0",
        ]
    }

    private static func percentiles(_ histogram: LatencyHistogram) -> [String] {
        [0.5, 0.9, 0.95, 0.99].map { decimal(histogram.percentile($0)) } + [decimal(histogram.max)]
    }

    private static func coarse(_ value: Double?) -> String { value.map(decimal) ?? "" }

    private static func decimal(_ value: Double) -> String {
        let rounded = Rounding.millis(value)
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    }

    /// RFC 4180: fields with a comma, quote or line break quoted, quotes doubled; CRLF lines.
    static func text(_ rows: [[String]]) -> String {
        rows.map { row in
            row.map { field in
                field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
                    ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
            }.joined(separator: ",")
        }.joined(separator: "\r\n") + "\r\n"
    }
}
