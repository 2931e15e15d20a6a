/// A member of an object schema.
package struct APIMember: Sendable {
    package var name: String
    package var schema: APISchema
    package var required = true

    package init(name: String, schema: APISchema, required: Bool = true) {
        self.name = name
        self.schema = schema
        self.required = required
    }
}
