import BeekonDevice
import FleetEngine
import FleetReport

/// A device in `GET /api/v1/devices`, and the first members of its detail.
struct DeviceSummaryBody: APIBody {
    struct StoreProblem: APIBody {
        var cause: String
        var message: String
        var since: APITime

        static let example = StoreProblem(cause: "full", message: "", since: APITime(0))
        static let summary: String? =
            "Why the device's store fails, while it is in `storeError`; null otherwise. The device retries on its "
            + "own and leaves the state once the store writes again."
        static let notes = [
            "cause": APINote(oneOf: DeviceStoreError.causes),
            "message": APINote("SQLite's own message, e.g. `database or disk is full`."),
        ]
    }

    enum Permission: String, APIEnum { case granted, revoked }
    enum Network: String, APIEnum { case online, offline }

    var id: String
    var group: String
    var platform: Platform
    var model: String
    var osVersion: String
    var sdkVersion: String
    var installId: String
    var state: String
    var alive: Bool
    var permission: Permission
    var locationServices: Bool
    var network: Network
    var sourceAddress: String?
    var pending: Int
    var lastOutcome: String?
    var lastUploadAt: APITime?
    var latitude: Double?
    var longitude: Double?
    var storeError: StoreProblem?

    static let example = DeviceSummaryBody(
        id: "", group: "", platform: .android, model: "", osVersion: "", sdkVersion: "", installId: "", state: "",
        alive: false,
        permission: .granted, locationServices: false, network: .online, sourceAddress: nil, pending: 0,
        lastOutcome: nil,
        lastUploadAt: nil, latitude: nil, longitude: nil, storeError: nil)
    static let component: String? = "DeviceSummary"
    static let notes = [
        "state": APINote(
            "`idle`, `starting`, `tracking`, `paused(permissionRevoked)`, `paused(locationDisabled)`, "
                + "`paused(unknown)`, `stopped`, `dead` (the app's process is gone), or `storeError` (its store "
                + "fails; see `storeError`)."),
        "lastOutcome": APINote("The outcome of its last upload (see UploadRecord.outcome)."),
        "latitude": APINote("The last admitted fix's."),
        "osVersion": APINote("Its OS release, such as `18.7` (iOS) or `15` (Android)."),
        "sdkVersion": APINote("The Beekon SDK version its uploads report."),
        "sourceAddress": APINote(
            "The local address its connections leave from (`--source-addresses`); null: the system's choice."),
    ]
}
