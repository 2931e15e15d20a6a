import BeekonDevice
import FleetDescription

/// An action that changes a lasting condition of the world (permission, location services,
/// network, the app's process), kept so that a device added later meets it too.
struct LastingAction {
    /// Which condition it sets; one action of a kind supersedes earlier ones of that kind.
    enum Kind: Hashable {
        case permission, locationServices, network, process
    }

    package var kind: Kind
    package var action: FleetAction
    package var selector: FaultSelector
    /// Seeds a `fraction` selector without a seed of its own.
    var faultIndex: Int
    /// For `kill` and `reboot`: when it ran, virtual ms, and its explicit delay (see `ProcessOutage`).
    var processDown: (since: Int64, delayMillis: Int64?)?

    /// The outage a `kill` or `reboot` note gives a device of `platform`.
    func outage(on platform: Platform) -> ProcessOutage? {
        processDown.map {
            ProcessOutage.plan(action.name, platform: platform, delayMillis: $0.delayMillis, since: $0.since)
        }
    }

    /// When a `kill` or `reboot` note is over on every platform, virtual ms; nil while one
    /// platform's app waits for a significant move, which a device added later makes too.
    var processBackAt: Int64? {
        var latest: Int64 = .min
        for platform in Platform.allCases {
            guard let launch = outage(on: platform)?.launch else { return nil }
            latest = max(latest, launch.at)
        }
        return latest
    }

    /// The condition `action` sets, and whether it is the default state (granted, on, online),
    /// or nil for actions that set no lasting condition.
    package static func kind(of action: FleetAction) -> (kind: Kind, restores: Bool)? {
        switch action {
        case .revokePermission: (.permission, false)
        case .grantPermission: (.permission, true)
        case .locationServicesOff: (.locationServices, false)
        case .locationServicesOn: (.locationServices, true)
        case .networkOffline: (.network, false)
        case .networkOnline: (.network, true)
        case .kill, .reboot: (.process, false)
        default: nil
        }
    }
}
