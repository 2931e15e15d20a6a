/// `POST /api/v1/fleet/actions`'s body: an action and the devices it picks.
struct FleetActionBody: APIRequest {
    var action: String?
    var params: RawMember?
    var selector: RawMember?

    /// Described per action by `ActionSchemas`.
    static let component = "FleetActionRequest"
}
