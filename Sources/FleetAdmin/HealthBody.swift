import FleetEngine
import FleetReport

/// `GET /healthz`.
struct HealthBody: APIBody {
    var status: RunPhase

    static let example = HealthBody(status: .running)
    static let component: String? = "Health"
}
