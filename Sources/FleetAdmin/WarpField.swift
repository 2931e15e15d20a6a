import BeekonDevice
import FleetDescription
import FleetReport

/// A warp: a number in `FleetFile.warpRange`, or the string `max`.
struct WarpField: BodyReadable, Sendable {
    var warp: Warp

    static func read(_ value: JSONValue, field: String) throws(APIError) -> WarpField {
        switch value {
        case .string(Warp.maxWord):
            return WarpField(warp: .max)
        case .number(_, let text):
            do throws(NumberProblem) {
                return WarpField(warp: try Warp.read(text))
            } catch {
                throw .badNumber(field, error)
            }
        default:
            throw .badType(field, number: "\(FleetFile.warpRange) or \"\(Warp.maxWord)\"", got: value)
        }
    }

    static var apiSchema: APISchema {
        var rate = APISchema(.number)
        rate.minimum = FleetFile.warpRange.lower
        rate.maximum = FleetFile.warpRange.upper
        return APISchema(.oneOf([rate, APISchema(.string(oneOf: [Warp.maxWord]))]))
    }
}
