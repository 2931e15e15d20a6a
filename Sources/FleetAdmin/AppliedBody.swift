import FleetReport

/// An action's answer: how many devices it was applied to, and which.
struct AppliedBody: APIBody {
    var applied: Int
    var ids: [String]

    init(_ ids: [String]) {
        applied = ids.count
        self.ids = ids
    }

    static let example = AppliedBody([])
    static let component: String? = "Applied"
}
