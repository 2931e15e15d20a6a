/// The body encoding of a refresh request.
public enum AuthBodyFormat: String, Sendable, Hashable, CaseIterable, Codable {
    case form
    case json
}
