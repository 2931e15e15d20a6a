import FleetEngine

/// Made-up `FleetPace`s, for the surfaces that say the run's pace (the admin API, `/metrics`,
/// the report and its summary).
package enum PaceExample {
    package static func snapshot(_ pace: FleetPace) -> FleetSnapshot {
        var snapshot = FleetSnapshot()
        snapshot.metrics.pace = pace
        return snapshot
    }

    package static let behind: FleetPace = {
        var pace = FleetPace(warp: 60)
        pace.achievedWarp = 41.234
        pace.timerLatenessP99Millis = 2_300.5
        pace.timerLatenessMaxMillis = 3_100
        pace.behind = true
        pace.behindSeconds = 12.34
        pace.minAchievedWarp = 38.456
        return pace
    }()

    package static let atMaxWarp: FleetPace = {
        var pace = FleetPace(warp: nil)
        pace.achievedWarp = 1_250
        return pace
    }()
}
