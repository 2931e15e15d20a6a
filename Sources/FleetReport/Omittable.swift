/// A member left out of its object when absent, rather than written as `null`: the schema lists
/// it as not required.
package enum Omittable<Wrapped: Encodable & APIDescribed>: Encodable, OmittableMember {
    case absent
    case present(Wrapped)

    package init(_ value: Wrapped?) {
        self = value.map { .present($0) } ?? .absent
    }

    package var isAbsent: Bool {
        if case .absent = self { return true }
        return false
    }

    package static var wrappedSchema: APISchema { Wrapped.apiSchema }

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .present(let value): try value.encode(to: encoder)
        case .absent:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        }
    }
}

extension Omittable: Sendable where Wrapped: Sendable {}
