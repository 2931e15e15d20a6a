/// How a token attaches: `Bearer` → `Authorization: Bearer <token>`; `Raw` → `Authorization: <token>`.
public enum AuthStrategy: String, Sendable, Hashable, CaseIterable, Codable {
    case bearer
    case raw
}
