import Foundation

/// A token-refresh POST as the SDK builds it from the `AuthConfig` recipe and the live tokens.
public struct RefreshRequest: Sendable, Hashable, CustomStringConvertible {
    /// The token endpoint.
    public var url: String
    /// Headers in the recipe's order, templated, with the body's `Content-Type` last.
    public var headers: [HTTPHeader]
    /// The templated payload, form- or JSON-encoded.
    public var body: [UInt8]

    /// The SDK's refresh timeout.
    public static let timeoutMillis: Int64 = 15_000

    /// The refresh request for `recipe` with the current `tokens`; nil without a refresh URL
    /// (seed-only auth never refreshes).
    public init?(recipe: AuthConfig, tokens: TokenSet) {
        guard let url = recipe.refreshURL else { return nil }
        self.url = url
        var headers: [HTTPHeader] = []
        for (name, value) in recipe.refreshHeaders {
            headers.append(HTTPHeader(name: name, value: Self.substitute(value, tokens)))
        }
        switch recipe.refreshBodyFormat {
        case .form:
            var form: [UInt8] = []
            for (name, value) in recipe.refreshPayload {
                if !form.isEmpty { form.append(UInt8(ascii: "&")) }
                Self.appendFormEncoded(name, to: &form)
                form.append(UInt8(ascii: "="))
                Self.appendFormEncoded(Self.substitute(value, tokens), to: &form)
            }
            body = form
            headers.append(HTTPHeader(name: "Content-Type", value: "application/x-www-form-urlencoded"))
        case .json:
            var json = JSONWriter(capacity: 256)
            json.beginObject()
            for (name, value) in recipe.refreshPayload {
                json.key(name)
                json.string(Self.substitute(value, tokens))
            }
            json.endObject()
            body = json.bytes
            headers.append(HTTPHeader(name: "Content-Type", value: "application/json"))
        }
        self.headers = headers
    }

    /// Names the endpoint and the headers' names only: the body and the header values carry
    /// tokens, which never appear in a log line.
    public var description: String {
        "RefreshRequest(url: \(url), headers: \(headers), body: <\(body.count) bytes redacted>)"
    }

    /// Replaces `{accessToken}` and `{refreshToken}` with the current tokens ("" when absent).
    static func substitute(_ template: String, _ tokens: TokenSet) -> String {
        guard template.contains("{") else { return template }
        return
            template
            .replacingOccurrences(of: "{accessToken}", with: tokens.accessToken ?? "")
            .replacingOccurrences(of: "{refreshToken}", with: tokens.refreshToken ?? "")
    }

    /// `application/x-www-form-urlencoded`: RFC 3986 unreserved bytes as they are, every other
    /// byte as %XX.
    static func appendFormEncoded(_ text: String, to bytes: inout [UInt8]) {
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            }
        }
    }
}

/// One HTTP header line.
public struct HTTPHeader: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The field name as written.
    public var name: String
    /// The field value.
    public var value: String

    /// A header from its name and value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `Name: value`, with the value of a header that may carry a secret redacted.
    public var description: String {
        "\(name): \(mayCarrySecret ? "<redacted>" : value)"
    }

    /// Whether the value may be a credential (authorization, cookies, keys, tokens).
    public var mayCarrySecret: Bool {
        let lowered = name.lowercased()
        return ["authorization", "cookie", "key", "token", "secret", "auth"].contains { lowered.contains($0) }
    }
}
