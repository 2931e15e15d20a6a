import FleetEngine
import FleetReport

/// `GET /api/v1/faults` and `DELETE /api/v1/faults/{fault}`'s answer.
struct FaultsBody: APIBody {
    var faults: [TimelineFaultBody]

    init(_ snapshot: FleetSnapshot) {
        faults = snapshot.timeline.map(TimelineFaultBody.init)
    }

    static let example = FaultsBody(FleetSnapshot())
    static let component: String? = "Faults"
    static let summary: String? =
        "The faults: the fleet file's timeline (upcoming, active with its end, done), then those the API began."
}
