import FleetDescription
import FleetReport

/// `PATCH /api/v1/fleet`'s body.
struct FleetPatchRequest: APIRequest {
    enum Devices: NumberField { static let range = Stage.devicesRange }

    var warp: WarpField?
    var paused: Bool?
    var devices: Ranged<Devices>?

    static let component = "FleetPatch"
    static let notes = [
        "warp": APINote(
            "Virtual seconds per real second (ends max warp from the time reached), or `max`: from the time "
                + "reached, each device runs on until it needs an answer it does not have yet, with every answer "
                + "taking 100 virtual ms from then on (modelled timing, as `run --deterministic`)."),
        "paused": APINote(
            "true stops the devices' virtual clock (the server's runs on): what the server answers to requests "
                + "already out is heard at the paused instant, and what devices send meanwhile waits until false "
                + "restarts it, so nothing new reaches the server and the paused fleet's figures agree with its store "
                + "(at max warp answers wait too). A paused run is not the digest of one never paused."),
        "devices": APINote(
            "Bring the fleet to this many running devices now, shared over the groups by the counts the fleet file "
                + "gave them (as `run --devices`): new ones are spawned, stopped ones started again first; fewer stops "
                + "the newest (the SDK's `stop()`: what they hold still uploads). Ends any `stages:` or `daily:`. More "
                + "than 10,000 new devices in one command is 409: scale up in steps."),
    ]
}
