import FleetReport

/// A value of a device's SDK stream: `{"at", "stream": "syncStatus", "status", …}` or
/// `{"at", "stream": "authChanges", "change", …}`; with `device` as the `sdk` live event.
struct StreamRecordBody: APIBody {
    enum Stream: String, APIEnum { case syncStatus, authChanges }
    enum Status: String, APIEnum { case idle, inFlight, succeeded, retrying, failed }
    enum Change: String, APIEnum { case seeded, refreshed, deadCredentials, breakerOpened }

    var device: Omittable<String> = .absent
    var at: APITime
    var stream: Stream
    var status: Omittable<Status> = .absent
    var count: Omittable<Int> = .absent
    var attempt: Omittable<Int> = .absent
    var nextAt: Omittable<APITime> = .absent
    var reason: Omittable<String> = .absent
    var change: Omittable<Change> = .absent
    /// Present, and maybe null, for `seeded` and `refreshed`.
    var expiresAt: Omittable<APITime?> = .absent
    var until: Omittable<APITime> = .absent

    static let example = StreamRecordBody(at: APITime(0), stream: .syncStatus)
    static let component: String? = "StreamRecord"
    static let notes = [
        "device": APINote("In the `sdk` live event only."),
        "count": APINote(minimum: 0),
        "attempt": APINote(minimum: 1),
        "reason": APINote(oneOf: ["auth", "rejected"]),
    ]
}
