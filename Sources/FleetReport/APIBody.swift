/// One of the admin API's bodies: a `Codable` type whose schema is derived from the members it
/// encodes, in order, with their static types (see `APISchemaRecorder`), plus what `notes` says
/// of each. A `component` is written once under `components.schemas` and referred to elsewhere.
/// One type serves the API and the run report: its members are named in the encoder's key style
/// (`APIKeyStyle`), the API's camelCase unless the body says otherwise (`keyStyle`).
package protocol APIBody: Encodable, Sendable, APIDescribed {
    /// How its members are named when nothing else says (the run report's are snake_case).
    static var keyStyle: APIKeyStyle { get }
    /// A value to derive the schema from: every member is encoded, whatever its value, so any
    /// value will do; nil members are recorded as nullable.
    static var example: Self { get }
    /// Its name under `components.schemas`, or nil to be written where it is used.
    static var component: String? { get }
    /// The body's own description.
    static var summary: String? { get }
    /// Per member: a description, and a range or a string set where the type alone does not say.
    /// Keyed by the member's name as its type spells it, or as written.
    static var notes: [String: APINote] { get }
    /// The description and notes where the body is written in `keys`' style: by default `summary`
    /// and `notes`; a body the report shares with the API may say it in the report's own words.
    static func summary(_ keys: APIKeyStyle) -> String?
    static func notes(_ keys: APIKeyStyle) -> [String: APINote]
    /// Whether a request may send it (as `Geofence`): then no member but its own is taken.
    static var closed: Bool { get }
}
