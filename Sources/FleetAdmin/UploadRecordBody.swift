import FleetReport

/// One upload as its device heard it.
struct UploadRecordBody: APIBody {
    var at: APITime
    var batchId: String
    var fixes: Int
    var outcome: String
    var latencyMs: Double
    var serverMs: Double?

    static let example = UploadRecordBody(
        at: APITime(0), batchId: "", fixes: 0, outcome: "", latencyMs: 0, serverMs: nil)
    static let component: String? = "UploadRecord"
    static let notes = [
        "at": APINote("When the device heard the outcome (virtual time)."),
        "outcome": APINote(
            "What the device heard: a status (`200`, `503`), a network failure (`timeout`, `refused`, "
                + "`too-many-open-files`, `reset`, `dns`, `tls`, `other`), or `offline` (the device's network went "
                + "down while the upload was out; heard at that instant, the rows kept for when it returns). A "
                + "`timeouts` fault's transfer is `timeout`, whatever the server answered."),
        "latencyMs": APINote(
            "Virtual milliseconds from send to the outcome heard: the server's answer time × the warp, plus "
                + "injected latency; 30000 for an upload the SDK timed out."),
        "serverMs": APINote(
            "Wall-clock milliseconds the server took to answer; null when it had not answered by the time the "
                + "device heard the outcome (its timeout, or `offline`)."),
    ]
}
