import FleetReport

extension APIJSON {
    /// `value` as the JSON text `bytes` writes, in the key style `keys` (by default the body's
    /// own): what a test holds a body to.
    package static func text(_ value: some Encodable, keys: APIKeyStyle? = nil) -> String {
        String(decoding: bytes(value, keys: keys), as: UTF8.self)
    }
}
