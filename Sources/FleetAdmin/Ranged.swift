import BeekonDevice
import FleetReport

/// A number in its field's one range (whole when the range is): anything else is refused naming
/// the field, the value and the range.
struct Ranged<Field: NumberField>: BodyReadable, Sendable {
    var value: Double

    static func read(_ value: JSONValue, field: String) throws(APIError) -> Ranged {
        guard case .number(_, let text) = value else { throw .badType(field, range: Field.range, got: value) }
        do throws(NumberProblem) {
            return Ranged(
                value: Field.range.isInteger ? Double(try Field.range.readInteger(text)) : try Field.range.read(text))
        } catch {
            throw .badNumber(field, error)
        }
    }

    static var apiSchema: APISchema {
        var schema = APISchema(Field.range.isInteger ? .integer : .number)
        schema.minimum = Field.range.lower
        schema.maximum = Field.range.upper
        return schema
    }
}
