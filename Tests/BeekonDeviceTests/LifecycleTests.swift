import Testing

@testable import BeekonDevice

@Suite("Lifecycle")
struct LifecycleTests {
    @Test("a new lifecycle is Idle and emits nothing until start()")
    func idle() {
        var lifecycle = Lifecycle(platform: .android)
        #expect(lifecycle.state == .idle)
        #expect(lifecycle.stop().isEmpty)
        #expect(lifecycle.firstFixArrived().isEmpty)
        #expect(lifecycle.permissionChanged(granted: false).isEmpty)
        #expect(lifecycle.state == .idle)
    }

    @Test("Android: Idle → Starting, and Starting → Tracking when the first OS fix lands")
    func androidStart() {
        var lifecycle = Lifecycle(platform: .android)
        #expect(lifecycle.start() == [.starting])
        #expect(lifecycle.firstFixArrived() == [.tracking])
        #expect(lifecycle.firstFixArrived().isEmpty)
    }

    @Test("iOS 17+: Starting → Tracking at once")
    func iosStart() {
        var lifecycle = Lifecycle(platform: .ios)
        #expect(lifecycle.start() == [.starting, .tracking])
        #expect(lifecycle.firstFixArrived().isEmpty)
    }

    @Test("Starting → Paused when a precondition already fails at start()", arguments: Platform.allCases)
    func startingToPaused(platform: Platform) {
        var noPermission = Lifecycle(platform: platform, permissionGranted: false)
        #expect(noPermission.start() == [.starting, .paused(.permissionRevoked)])
        var servicesOff = Lifecycle(platform: platform, locationServicesOn: false)
        #expect(servicesOff.start() == [.starting, .paused(.locationDisabled)])
    }

    @Test("start() while a run is in progress is a no-op", arguments: Platform.allCases)
    func startWhileStarted(platform: Platform) {
        var lifecycle = Lifecycle(platform: platform)
        _ = lifecycle.start()
        _ = lifecycle.firstFixArrived()
        #expect(lifecycle.start().isEmpty)
        _ = lifecycle.permissionChanged(granted: false)
        #expect(lifecycle.start().isEmpty)
        #expect(lifecycle.state == .paused(.permissionRevoked))
    }

    @Test(
        "Tracking ⇄ Paused(reason): each precondition pauses, and recovery resumes by itself",
        arguments: [
            PauseReason.permissionRevoked, .locationDisabled, .unknown,
        ])
    func pauseAndRecover(reason: PauseReason) {
        var lifecycle = Lifecycle(platform: .ios)
        _ = lifecycle.start()
        func set(_ ok: Bool) -> [TrackingState] {
            switch reason {
            case .permissionRevoked: lifecycle.permissionChanged(granted: ok)
            case .locationDisabled: lifecycle.locationServicesChanged(on: ok)
            case .unknown: lifecycle.osErrorChanged(active: !ok)
            }
        }
        #expect(set(false) == [.paused(reason)])
        #expect(lifecycle.isRunning == false)
        #expect(set(true) == [.tracking])
    }

    @Test("while two preconditions fail, recovering one keeps the pause with the other reason")
    func twoFailures() {
        var lifecycle = Lifecycle(platform: .android)
        _ = lifecycle.start()
        _ = lifecycle.firstFixArrived()
        #expect(lifecycle.locationServicesChanged(on: false) == [.paused(.locationDisabled)])
        #expect(lifecycle.permissionChanged(granted: false) == [.paused(.permissionRevoked)])
        #expect(lifecycle.permissionChanged(granted: true) == [.paused(.locationDisabled)])
        #expect(lifecycle.locationServicesChanged(on: true) == [.tracking])
    }

    @Test("stop() from Starting, Tracking or Paused goes to Stopped; only start() leaves Stopped")
    func stopAndRestart() {
        for setup in 0..<3 {
            var lifecycle = Lifecycle(platform: .android)
            _ = lifecycle.start()
            if setup >= 1 { _ = lifecycle.firstFixArrived() }
            if setup == 2 { _ = lifecycle.osErrorChanged(active: true) }
            #expect(lifecycle.stop() == [.stopped])
            #expect(lifecycle.osErrorChanged(active: false).isEmpty)
            #expect(lifecycle.permissionChanged(granted: true).isEmpty)
            #expect(lifecycle.firstFixArrived().isEmpty)
            #expect(lifecycle.state == .stopped)
            #expect(lifecycle.start() == [.starting])
        }
    }

    @Test("after process death, relaunch brings tracking back up", arguments: Platform.allCases)
    func relaunch(platform: Platform) {
        var lifecycle = Lifecycle(platform: platform)
        _ = lifecycle.start()
        let states = lifecycle.relaunch()
        #expect(states.first == .starting)
        #expect(lifecycle.isStarted)
    }
}
