/// `POST /api/v1/devices/{id}/actions`'s body (its schema, one shape per action, is
/// `ActionSchemas`'s).
struct DeviceActionBody: APIRequest {
    var action: String?
    var params: RawMember?

    /// Described per action by `ActionSchemas`, not derived: one shape for each action's params.
    static let component = "DeviceActionRequest"
}
