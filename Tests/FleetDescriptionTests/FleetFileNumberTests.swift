import BeekonDevice
import Testing

@testable import FleetDescription
@testable import FleetEngine
@testable import FleetRoutes

/// Hostile numbers in every numeric field of a fleet file: each is accepted exactly when its
/// field's range takes it, and otherwise refused at file:line:column naming the field and value.
@Suite("Fleet file numbers")
struct FleetFileNumberTests {
    /// How a field reads its text.
    enum Kind: Sendable {
        case real(NumberRange)
        case integer(NumberRange)
        case duration
        case runLength
        case millis(NumberRange)

        func accepts(_ text: String) -> Bool {
            switch self {
            case .real(let range): (try? range.read(text)) != nil
            case .integer(let range): (try? range.readInteger(text)) != nil
            case .duration: (try? FleetDuration.read(text)) != nil
            case .runLength: (try? FleetDuration.readRunLength(text)) != nil
            case .millis(let range):
                // A bare number is whole milliseconds; anything else a duration.
                (try? FleetDuration.anyNumber.read(text)) != nil
                    ? (try? range.readInteger(text)) != nil
                    : (try? FleetDuration.read(text)).map { range.contains(Double($0)) } == true
            }
        }
    }

    static let hostile = [
        "nan", ".nan", "NaN", "inf", ".inf", "-.inf", "1e300", "5e-324", "-1", "0", "9223372036854775808", "x", "1e16",
    ]

    /// A group's lines and a fault's lines around `V`.
    static func fleet(group: String = "", top: String = "", fault: String = "") -> String {
        """
        name: numbers
        \(top)
        groups:
          - name: g
            count: 2
            route: r.csv
        \(group)
        faults:
          - at: 1m
            action: sync
        \(fault)
        """
    }

    static let fields: [(field: String, yaml: String, kind: Kind)] = [
        ("seed", fleet(top: "seed: V"), .integer(FleetFile.seedRange)),
        ("clock.warp", fleet(top: "clock: {warp: V}"), .real(FleetClock.warpRange)),
        ("duration", fleet(top: "duration: V"), .runLength),
        ("count", fleet().replacingOccurrences(of: "count: 2", with: "count: V"), .integer(DeviceGroup.countRange)),
        ("speedFactor", fleet(group: "    speedFactor: V"), .real(DeviceGroup.speedFactorRange)),
        ("pace", fleet(group: "    pace: V"), .real(DeviceGroup.speedRange)),
        ("platform.ios", fleet(group: "    platform: {ios: V, android: 1}"), .real(DeviceGroup.platformWeightRange)),
        (
            "dwell.every", fleet(group: "    pace: walk\n    dwell: {every: V, for: 1m}"),
            .real(DeviceGroup.dwellEveryRange)
        ),
        ("dwell.for", fleet(group: "    pace: walk\n    dwell: {every: 100, for: V}"), .duration),
        ("startOffset", fleet(group: "    startOffset: V"), .real(DeviceGroup.startOffsetRange)),
        ("start", fleet(group: "    start: V"), .duration),
        ("spread", fleet(group: "    spread: V"), .duration),
        (
            "provider.gapsPerHour", fleet(group: "    provider: {gapsPerHour: V}"),
            .real(ProviderProfile.gapsPerHourRange)
        ),
        (
            "provider.outlierProbability", fleet(group: "    provider: {outlierProbability: V}"),
            .real(ProviderProfile.outlierProbabilityRange)
        ),
        (
            "minTimeBetweenLocationsSeconds",
            fleet(group: "    config: {minTimeBetweenLocationsSeconds: V, sync: false}"),
            .real(BeekonConfig.minTimeRange)
        ),
        (
            "minDistanceBetweenLocationsMeters",
            fleet(group: "    config: {minDistanceBetweenLocationsMeters: V, sync: false}"),
            .real(BeekonConfig.minDistanceRange)
        ),
        (
            "stationaryRadiusMeters", fleet(group: "    config: {stationaryRadiusMeters: V, sync: false}"),
            .real(BeekonConfig.stationaryRadiusRange)
        ),
        (
            "sync.intervalSeconds",
            fleet(group: "    config: {sync: {url: 'http://127.0.0.1:1/i', intervalSeconds: V}}"),
            .integer(SyncConfig.intervalRange)
        ),
        (
            "sync.batchSize", fleet(group: "    config: {sync: {url: 'http://127.0.0.1:1/i', batchSize: V}}"),
            .integer(SyncConfig.batchSizeRange)
        ),
        (
            "sync.syncThreshold", fleet(group: "    config: {sync: {url: 'http://127.0.0.1:1/i', syncThreshold: V}}"),
            .integer(SyncConfig.syncThresholdRange)
        ),
        (
            "auth.expiresAt", fleet(group: "    config: {sync: {url: 'http://127.0.0.1:1/i', auth: {expiresAt: V}}}"),
            .real(AuthConfig.expiresAtRange)
        ),
        (
            "auth.skewMarginSeconds",
            fleet(group: "    config: {sync: {url: 'http://127.0.0.1:1/i', auth: {skewMarginSeconds: V}}}"),
            .real(AuthConfig.skewMarginRange)
        ),
        (
            "geofence.latitude", fleet(group: "    geofences: [{id: a, latitude: V, longitude: 0, radius: 100}]"),
            .real(Geofence.latitudeRange)
        ),
        (
            "geofence.longitude", fleet(group: "    geofences: [{id: a, latitude: 0, longitude: V, radius: 100}]"),
            .real(Geofence.longitudeRange)
        ),
        (
            "geofence.radius", fleet(group: "    geofences: [{id: a, latitude: 0, longitude: 0, radius: V}]"),
            .real(Geofence.radiusRange)
        ),
        ("at", fleet().replacingOccurrences(of: "at: 1m", with: "at: V"), .duration),
        ("for", fleet(fault: "    for: V").replacingOccurrences(of: "action: sync", with: "action: kill"), .duration),
        ("select.fraction", fleet(fault: "    select: {fraction: V}"), .real(FaultSelector.fractionRange)),
        (
            "params.ms",
            fleet(fault: "    params: {ms: V}").replacingOccurrences(of: "action: sync", with: "action: latency"),
            .millis(FleetAction.latencyRange)
        ),
        (
            "params.fraction",
            fleet(fault: "    params: {fraction: V}").replacingOccurrences(
                of: "action: sync", with: "action: timeouts"),
            .real(FleetAction.timeoutFractionRange)
        ),
        ("network.uplinkKbps", fleet(group: "    network: {uplinkKbps: V}"), .real(NetworkProfile.uplinkKbpsRange)),
        (
            "network.latency.median", fleet(group: "    network: {latency: {median: V}}"),
            .millis(NetworkProfile.latencyMedianRange)
        ),
        (
            "network.latency.tail", fleet(group: "    network: {latency: {tail: V}}"),
            .millis(NetworkProfile.latencyTailRange)
        ),
        ("network.loss", fleet(group: "    network: {profile: lte, loss: V}"), .real(NetworkProfile.lossRange)),
        ("network.dns", fleet(group: "    network: {dns: V}"), .real(NetworkProfile.shareRange)),
        ("network.tls", fleet(group: "    network: {tls: V}"), .real(NetworkProfile.shareRange)),
        ("network.resetMidBody", fleet(group: "    network: {resetMidBody: V}"), .real(NetworkProfile.shareRange)),
        (
            "params.uplinkKbps",
            fleet(fault: "    params: {uplinkKbps: V}").replacingOccurrences(
                of: "action: sync", with: "action: networkProfile"),
            .real(NetworkProfile.uplinkKbpsRange)
        ),
        (
            "params.latency.median",
            fleet(fault: "    params: {latency: {median: V}}").replacingOccurrences(
                of: "action: sync", with: "action: networkProfile"),
            .millis(NetworkProfile.latencyMedianRange)
        ),
        (
            "params.loss",
            fleet(fault: "    params: {loss: V}").replacingOccurrences(
                of: "action: sync", with: "action: networkProfile"),
            .real(NetworkProfile.lossRange)
        ),
    ]

    static var cases: [(field: String, yaml: String, kind: Kind, value: String)] {
        fields.flatMap { field in hostile.map { (field.field, field.yaml, field.kind, $0) } }
    }

    @Test(
        "every numeric field takes a value exactly when its range does, and names itself when it refuses",
        arguments: cases)
    func hostileNumber(field: String, yaml: String, kind: Kind, value: String) {
        let text = yaml.replacingOccurrences(of: ": V", with: ": \(value)")
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex {
            $0.contains(": \(value)")
        }.map { $0 + 1 }
        do throws(FleetFileProblems) {
            _ = try FleetFile.parse(yaml: text, file: "f.yaml")
            #expect(kind.accepts(value), "\(field) took \(value)")
        } catch {
            #expect(!kind.accepts(value), "\(field) refused \(value): \(error)")
            let problem = error.problems.first { $0.problem.contains("`\(field)` \"\(value)\"") }
            #expect(problem != nil, "\(error)")
            #expect(problem?.line == line && problem?.column ?? 0 > 0, "\(error)")
            #expect(error.problems.count == 1, "\(error)")
        }
    }

    @Test(
        "clock.start takes instants from 1970 to 9999 only",
        arguments: [
            ("1970-01-01T00:00:00Z", true), ("9999-12-31T23:59:59Z", true), ("2026-06-15T08:00:00Z", true),
            ("1969-12-31T23:59:59Z", false), ("0001-01-01T00:00:00Z", false), ("10000-01-01T00:00:00Z", false),
            ("+10000-01-01T00:00:00Z", false), ("now", true), ("yesterday", false),
        ])
    func clockStart(text: String, accepted: Bool) {
        let yaml = Self.fleet(top: "clock: {start: \"\(text)\"}")
        do throws(FleetFileProblems) {
            _ = try FleetFile.parse(yaml: yaml, file: "f.yaml")
            #expect(accepted)
        } catch {
            #expect(!accepted)
            #expect(
                error.problems.map(\.description) == [
                    "f.yaml:2:16: error: `clock.start` \"\(text)\" "
                        + (text.hasPrefix("19") || text.hasPrefix("00") ? "is out of range" : "is not an instant")
                        + "; expected `now` or an ISO-8601 UTC time "
                        + "from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, such as 2026-06-15T08:00:00Z"
                ])
        }
    }

    @Test("a quoted number is text, not a number (an admin spec's JSON string too); a quoted duration is a duration")
    func quotedNumbers() throws {
        do throws(FleetFileProblems) {
            _ = try FleetFile.parse(
                yaml: Self.fleet().replacingOccurrences(of: "count: 2", with: "count: \"2\""), file: "f.yaml")
            Issue.record("a quoted count was taken")
        } catch {
            #expect(
                error.problems.map(\.description) == [
                    "f.yaml:5:12: error: `count` \"2\" is not a number; "
                        + "expected a whole number from 1 to 100000 devices"
                ])
        }
        let fleet = try FleetFile.parse(yaml: Self.fleet(group: "    spread: \"90s\""), file: "f.yaml")
        #expect(fleet.groups[0].spreadMillis == 90_000)
    }
}
