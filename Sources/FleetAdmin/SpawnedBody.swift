import FleetReport

/// A spawn's answer: the new devices' ids.
struct SpawnedBody: APIBody {
    var ids: [String]

    static let example = SpawnedBody(ids: [])
    static let component: String? = "Spawned"
}
