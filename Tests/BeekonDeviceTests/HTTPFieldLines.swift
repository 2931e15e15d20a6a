import HTTPTypes

extension HTTPFields {
    /// Each field as it goes on the wire, `Name: value`, names as written: what a test holds a
    /// request's headers to.
    var lines: [String] { map { "\($0.name.rawName): \($0.value)" } }
}
