import FleetDescription
import FleetReport

/// Which devices a fleet action picks: exactly one of `all`, `group`, `fraction` (+ `seed`),
/// `ids`, `state`.
struct SelectorRequest: APIRequest {
    enum Fraction: NumberField { static let range = FaultSelector.fractionRange }
    enum Seed: NumberField { static let range = FleetFile.seedRange }

    var all: Bool?
    var group: String?
    var fraction: Ranged<Fraction>?
    var seed: Ranged<Seed>?
    var ids: [String]?
    var state: String?

    static let component = "Selector"
    static let summary: String? = "Exactly one of these (`seed` only with `fraction`)."
    static let forms = [
        APIRequestForm(required: ["all"]), APIRequestForm(required: ["group"]),
        APIRequestForm(required: ["fraction"], optional: ["seed"]), APIRequestForm(required: ["ids"]),
        APIRequestForm(required: ["state"]),
    ]
    static let notes = [
        "all": APINote(onlyTrue: true),
        "seed": APINote("Without it, the choice is seeded by the run seed and the action's number."),
        "ids": APINote(minItems: 1, itemMinLength: 1),
        "state": APINote(
            "Same matching as the list's `state` filter (exact, or a prefix ending in `*`).", minLength: 1),
    ]

    func selector() throws(APIError) -> FaultSelector {
        let given = [all != nil, group != nil, fraction != nil, ids != nil, state != nil].filter { $0 }.count
        guard given == 1 else {
            throw .badRequest(
                "a selector takes exactly one of all, group, fraction, ids, state (got \(given))", field: "selector")
        }
        if seed != nil, fraction == nil {
            throw .badRequest("`seed` goes with `fraction` only", field: "selector.seed")
        }
        if let all {
            guard all else { throw .badRequest("`all` must be true", field: "selector.all") }
            return .all
        }
        if let group { return .group(group) }
        if let fraction { return .fraction(fraction.value, seed: seed.map { UInt64($0.value) }) }
        if let ids {
            guard !ids.isEmpty else { throw .badRequest("`ids` is empty", field: "selector.ids") }
            if let empty = ids.firstIndex(of: "") {
                throw .badRequest("an id is empty; expected a device id", field: "selector.ids[\(empty)]")
            }
            return .ids(ids)
        }
        guard let state, !state.isEmpty else { throw .badRequest("`state` is empty", field: "selector.state") }
        return .state(state)
    }
}
