import FleetEngine

extension FleetMetrics {
    /// Uploads the fleet never put on the wire, by cause: every cause, 0 included, so a reader
    /// finds the same keys in every run.
    package var notSentByCause: [(key: TransferOutcome.NotSentCause, value: Int)] {
        TransferOutcome.NotSentCause.allCases.map { ($0, uploads.overall[.notSent($0)]?.count ?? 0) }
    }

    /// Uploads heard as `warp-timeout` (timed as answered above warp 1).
    package var warpTimeouts: Int { uploads.overall[.warpTimeout]?.count ?? 0 }
}
