import FleetReport

/// The `uploads` live event: the last whole second's uploads.
struct UploadsEventBody: APIBody {
    struct Latency: APIBody {
        var p50: Double
        var p95: Double
        var p99: Double

        static let example = Latency(p50: 0, p95: 0, p99: 0)
    }

    var byOutcome: APIMap<Int>
    var latencyMs: Latency

    static let example = UploadsEventBody(byOutcome: APIMap([]), latencyMs: .example)
    static let component: String? = "UploadsEvent"
}
