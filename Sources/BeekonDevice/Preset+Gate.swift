/// What the OS provider is asked for; sets its fix cadence and typical accuracy.
public enum AccuracyRequest: String, Sendable, Hashable, CaseIterable, Codable {
    /// GPS: a fix a second, 3–10 m.
    case high
    /// Fused: a fix every 5 s, 10–65 m.
    case balanced
    /// Cell/Wi-Fi: a fix every 30 s, 50–500 m.
    case low
}

extension Preset {
    /// The preset's minimum time between admitted fixes, in seconds.
    public var minTimeBetweenLocationsSeconds: Double {
        switch self {
        case .saver: 60
        case .balanced: 30
        case .precision: 10
        }
    }

    /// The preset's minimum distance between admitted fixes, in metres.
    public var minDistanceBetweenLocationsMeters: Double {
        switch self {
        case .saver: 150
        case .balanced: 100
        case .precision: 30
        }
    }

    /// The accuracy the preset asks the OS for.
    public var accuracyRequest: AccuracyRequest {
        switch self {
        case .saver: .low
        case .balanced: .balanced
        case .precision: .high
        }
    }
}

extension BeekonConfig {
    /// The gate this configuration sets: the preset's thresholds, with any overrides applied.
    public var gate: Gate {
        Gate(
            minTimeMillis: Int64(
                ((minTimeBetweenLocationsSeconds ?? preset.minTimeBetweenLocationsSeconds) * 1000)
                    .rounded()),
            minDistanceMeters: minDistanceBetweenLocationsMeters
                ?? preset.minDistanceBetweenLocationsMeters)
    }
}
