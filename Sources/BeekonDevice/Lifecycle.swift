/// The lifecycle state machine: seed 01's states and transitions, and spec §2's platform
/// differences. It knows the OS preconditions (permission, location services, a transient
/// error) and whether the app intends to track; it returns the states it passed through.
public struct Lifecycle: Sendable, Hashable {
    /// The emulated platform: Android stays Starting until the first fix; iOS 17+ does not.
    public let platform: Platform
    /// Whether `start()` reaches Tracking at once (iOS 17+) rather than at the first fix.
    public let tracksAtStart: Bool
    /// The current state.
    public private(set) var state: TrackingState = .idle
    /// Whether the app has location permission.
    public private(set) var permissionGranted: Bool
    /// Whether system-wide location services are on.
    public private(set) var locationServicesOn: Bool
    /// Whether a transient OS error is in progress.
    public private(set) var osErrorActive = false

    /// A lifecycle in Idle with these OS preconditions, on `platform` at `osVersion` (nil: a
    /// current release).
    public init(
        platform: Platform, osVersion: OSVersion? = nil, permissionGranted: Bool = true,
        locationServicesOn: Bool = true
    ) {
        self.platform = platform
        tracksAtStart = OSVersion.tracksAtStart(platform, osVersion)
        self.permissionGranted = permissionGranted
        self.locationServicesOn = locationServicesOn
    }

    /// The precondition that fails now, most fundamental first; nil when tracking can run.
    public var failingPrecondition: PauseReason? {
        if !permissionGranted { return .permissionRevoked }
        if !locationServicesOn { return .locationDisabled }
        if osErrorActive { return .unknown }
        return nil
    }

    /// Whether the OS pipeline is up (fixes reach the gate).
    public var isRunning: Bool {
        switch state {
        case .starting, .tracking: true
        case .idle, .paused, .stopped: false
        }
    }

    /// Whether a tracking run is in progress (started and not stopped), paused or not.
    public var isStarted: Bool {
        switch state {
        case .starting, .tracking, .paused: true
        case .idle, .stopped: false
        }
    }

    /// `start()`: from Idle or Stopped to Starting, then on at once to Tracking (iOS 17+) or to
    /// Paused when a precondition already fails. A no-op while a run is in progress.
    public mutating func start() -> [TrackingState] {
        guard !isStarted else { return [] }
        return bringUp()
    }

    /// Brings the pipeline back after process death, for an app whose tracking intent was set.
    public mutating func relaunch() -> [TrackingState] {
        state = .idle
        return bringUp()
    }

    /// The state holder is gone (`shutdown()` or process death): back to Idle without a word,
    /// the OS preconditions as they are, a transient error forgotten with the process.
    public mutating func forget() {
        state = .idle
        osErrorActive = false
    }

    /// `stop()`: to Stopped from any started state. A no-op when nothing runs.
    public mutating func stop() -> [TrackingState] {
        guard isStarted else { return [] }
        return transition(to: .stopped)
    }

    /// The first OS fix landed: Android (and iOS 15–16) leave Starting for Tracking.
    public mutating func firstFixArrived() -> [TrackingState] {
        guard state == .starting else { return [] }
        return transition(to: .tracking)
    }

    /// Location permission was granted (true) or revoked (false).
    public mutating func permissionChanged(granted: Bool) -> [TrackingState] {
        permissionGranted = granted
        return reevaluate()
    }

    /// Location services were switched on (true) or off (false).
    public mutating func locationServicesChanged(on: Bool) -> [TrackingState] {
        locationServicesOn = on
        return reevaluate()
    }

    /// A transient OS error began (true) or is over (false).
    public mutating func osErrorChanged(active: Bool) -> [TrackingState] {
        osErrorActive = active
        return reevaluate()
    }

    private mutating func bringUp() -> [TrackingState] {
        var passed = transition(to: .starting)
        if let reason = failingPrecondition {
            passed += transition(to: .paused(reason))
        } else if tracksAtStart {
            passed += transition(to: .tracking)
        }
        return passed
    }

    /// Moves to Paused when a precondition fails while started, and back when all recover.
    private mutating func reevaluate() -> [TrackingState] {
        guard isStarted else { return [] }
        if let reason = failingPrecondition {
            return transition(to: .paused(reason))
        }
        guard case .paused = state else { return [] }
        return transition(to: .tracking)
    }

    private mutating func transition(to next: TrackingState) -> [TrackingState] {
        guard next != state else { return [] }
        state = next
        return [next]
    }
}
