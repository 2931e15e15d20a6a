/// Where an action, or the fault it began, came from.
public enum ActionSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// The fleet file's fault timeline.
    case timeline
    /// The admin API (REST, or the page through it).
    case api
}
