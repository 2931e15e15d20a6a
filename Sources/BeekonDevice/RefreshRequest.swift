import Foundation
import HTTPMessage
import HTTPTypes

/// A token-refresh POST as the SDK builds it from the `AuthConfig` recipe and the live tokens.
public struct RefreshRequest: Sendable, Hashable, CustomStringConvertible {
    /// `POST` to the token endpoint, with the recipe's headers in order, templated, and the
    /// body's `Content-Type` last.
    public var head: HTTPRequest
    /// The templated payload, form- or JSON-encoded.
    public var body: [UInt8]

    /// The SDK's refresh timeout.
    public static let timeoutMillis: Int64 = 15_000

    /// The refresh request for `recipe` with the current `tokens`; nil without a refresh URL
    /// (seed-only auth never refreshes).
    public init?(recipe: AuthConfig, tokens: TokenSet) {
        guard let url = recipe.refreshURL else { return nil }
        var headers = HTTPFields()
        for (name, value) in recipe.refreshHeaders {
            // A name that is no field name was refused where the recipe was read.
            if let field = HTTPFields.field(name, Self.substitute(value, tokens)) { headers.append(field) }
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
            headers.append(HTTPField(name: .contentType, value: "application/x-www-form-urlencoded"))
        case .json:
            var json = JSONWriter(capacity: 256)
            json.beginObject()
            for (name, value) in recipe.refreshPayload {
                json.key(name)
                json.string(Self.substitute(value, tokens))
            }
            json.endObject()
            body = json.bytes
            headers.append(HTTPField(name: .contentType, value: "application/json"))
        }
        head = HTTPRequest(method: .post, target: url, headerFields: headers)
    }

    /// Names the endpoint and the headers' names only: the body and the header values carry
    /// tokens, which never appear in a log line.
    public var description: String {
        "RefreshRequest(url: \(head.target), headers: \(head.headerFields.redacted), "
            + "body: <\(body.count) bytes redacted>)"
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
