/// A type whose JSON form has a schema: the admin API's bodies and what they are made of.
package protocol APIDescribed {
    static var apiSchema: APISchema { get }
    /// Its schema with its members named in `keys`' style (the same for a type with no members).
    static func apiSchema(keys: APIKeyStyle) -> APISchema
}
