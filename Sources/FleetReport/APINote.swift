import BeekonDevice

/// What a member's type does not say: its description, range, or the strings it takes.
package struct APINote: Sendable {
    var description: String?
    var minimum: Double?
    var maximum: Double?
    var oneOf: [String]?
    var maxItems: Int?
    var minItems: Int?
    var minLength: Int?
    var maxLength: Int?
    var pattern: String?
    /// `minLength` of each item of an array of strings.
    var itemMinLength: Int?
    /// A schema of `components.schemas` that says what the member holds (hand-written there).
    var reference: String?
    var onlyTrue = false

    package init(
        _ description: String? = nil, minimum: Double? = nil, maximum: Double? = nil, oneOf: [String]? = nil,
        maxItems: Int? = nil, minItems: Int? = nil, minLength: Int? = nil, maxLength: Int? = nil,
        pattern: String? = nil, itemMinLength: Int? = nil, reference: String? = nil, onlyTrue: Bool = false
    ) {
        self.description = description
        self.minimum = minimum
        self.maximum = maximum
        self.oneOf = oneOf
        self.maxItems = maxItems
        self.minItems = minItems
        self.minLength = minLength
        self.maxLength = maxLength
        self.pattern = pattern
        self.itemMinLength = itemMinLength
        self.reference = reference
        self.onlyTrue = onlyTrue
    }

    /// A number's range, as the reader that takes it checks it (its unit in the description).
    package init(_ description: String? = nil, range: NumberRange) {
        let unit = range.unit.isEmpty ? nil : "In \(range.unit)."
        self.init(
            [description, unit].compactMap { $0 }.joined(separator: " "), minimum: range.lower, maximum: range.upper)
    }

    package func apply(to schema: inout APISchema) {
        if let description { schema.description = description }
        if let minimum { schema.minimum = minimum }
        if let maximum { schema.maximum = maximum }
        if let maxItems { schema.maxItems = maxItems }
        if let minItems { schema.minItems = minItems }
        if let minLength { schema.minLength = minLength }
        if let maxLength { schema.maxLength = maxLength }
        if let pattern { schema.pattern = pattern }
        if let itemMinLength, case .array(var items) = schema.shape {
            items.minLength = itemMinLength
            schema.shape = .array(items)
        }
        if let reference { schema.shape = .reference(reference) }
        if onlyTrue { schema.onlyTrue = true }
        if let oneOf, case .string = schema.shape { schema.shape = .string(oneOf: oneOf) }
    }
}
