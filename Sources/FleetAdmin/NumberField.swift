import BeekonDevice

/// What a `Ranged` number's range is.
protocol NumberField: Sendable {
    static var range: NumberRange { get }
}
