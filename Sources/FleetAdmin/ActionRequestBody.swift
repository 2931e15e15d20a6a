import BeekonDevice
import FleetDescription
import FleetReport

/// `{"action", "params"}` as a client sends `action`.
struct ActionRequestBody: APIBody {
    var action: FleetAction.Name
    var params: Params

    init(_ action: FleetAction) {
        self.action = action.name
        params = Params(action: action)
    }

    /// The action's parameters, each as its kind writes it (seconds as seconds, durations in ms).
    struct Params: Encodable, Sendable, APIDescribed {
        var action: FleetAction

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: MemberName.self)
            let values = action.parameterValues
            for parameter in action.name.details.parameters {
                guard let value = values[parameter.name] else { continue }
                let key = MemberName(stringValue: parameter.name)
                switch (value, parameter.kind) {
                case (.millis(let millis), .seconds): try container.encode(Double(millis) / 1000, forKey: key)
                case (.millis(let millis), _): try container.encode(millis, forKey: key)
                case (.number(let number), _): try container.encode(number, forKey: key)
                case (.config(let config), _): try container.encode(ConfigBody(config), forKey: key)
                case (.stringMap(let map), _):
                    try container.encode(APIMap(map.map { (key: $0.key, value: $0.value) }), forKey: key)
                case (.geofences(let geofences), _):
                    try container.encode(geofences.map(GeofenceBody.init), forKey: key)
                case (.strings(let strings), _): try container.encode(strings, forKey: key)
                case (.choice(let word), _), (.version(let word), _): try container.encode(word, forKey: key)
                case (.instant(let millis), _): try container.encode(Timestamp.text(unixMillis: millis), forKey: key)
                case (.latency(let median, let p95), _):
                    let members = [("median", median), ("p95", p95)].compactMap { name, millis in
                        millis.map { (key: name, value: Int($0)) }
                    }
                    try container.encode(APIMap(members), forKey: key)
                }
            }
        }

        static var apiSchema: APISchema {
            APISchema(.anyObject, description: "Its parameters, as the action's `params` lists them.")
        }
    }

    static let example = ActionRequestBody(.latency(millis: 0))
}
