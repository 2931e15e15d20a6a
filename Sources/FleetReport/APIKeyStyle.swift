/// How members are named in JSON: the admin API's camelCase, or the run report's snake_case (a
/// file other tools read, as k6's and Locust's exports). A body's type spells its members once, in
/// camelCase; the encoder writes them in the style it is given. A map's keys (`MemberName`) are
/// data, written as they are.
package enum APIKeyStyle: Sendable {
    case camelCase
    case snakeCase

    /// `key` as written in this style: `latencyMs` or `latency_ms`.
    func name(_ key: some CodingKey) -> String {
        let name = key.stringValue
        guard self == .snakeCase, !(key is MemberName), name.contains(where: \.isUppercase) else { return name }
        var snake = ""
        for character in name {
            if character.isUppercase { snake += "_" + character.lowercased() } else { snake.append(character) }
        }
        return snake
    }

    /// The style `value` is written in by default: its body type's own (`APIBody.keyStyle`).
    static func of(_ value: some Encodable) -> APIKeyStyle {
        (type(of: value) as? any APIBody.Type)?.keyStyle ?? .camelCase
    }
}
