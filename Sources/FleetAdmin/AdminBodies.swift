import BeekonDevice
import FleetDescription
import FleetEngine
import FleetReport

// The admin API's response bodies and live events, as `Codable` types: `APIJSON` writes them,
// and their schemas in docs/openapi.yaml are generated from them (`AdminSchemas`).

extension Platform: APIEnum {}
extension RelaunchCause: APIEnum {}
extension RunPhase: APIEnum, Encodable {}
extension SyncView.Phase: APIEnum, Encodable {}
extension AuthView.State: APIEnum, Encodable {}
extension FleetAction.Name: APIDescribed {
    /// Listed once, as `ActionName` (`ActionSchemas`).
    package static var apiSchema: APISchema { APISchema(.reference("ActionName")) }
}
extension Preset: APIEnum {}
extension StationaryMode: APIEnum {}
extension AuthStrategy: APIEnum {}
extension AuthBodyFormat: APIEnum {}
extension ActionParameter.JSONType: APIEnum {}
extension PauseReason: APIEnum {}
extension Quality: APIEnum {}
extension StandbyBucket: APIEnum {}
extension FleetAction.PortalAnswer: APIEnum {}
extension DeviceWorld.DozePhase: APIEnum, Encodable {}

extension DeviceSummaryBody {
    init(_ device: DeviceSnapshot) {
        id = device.id
        group = device.group
        platform = device.platform
        model = device.model
        osVersion = device.osVersion
        sdkVersion = device.sdkVersion
        installId = device.installID
        state = device.state.description
        alive = device.alive
        permission = device.permissionGranted ? .granted : .revoked
        locationServices = device.locationServicesOn
        network = device.online ? .online : .offline
        sourceAddress = device.sourceAddress
        pending = device.pending
        lastOutcome = device.lastOutcome?.description
        lastUploadAt = APITime(optional: device.lastUploadAt)
        latitude = device.latitude
        longitude = device.longitude
        storeError = device.storeError.map {
            StoreProblem(cause: $0.cause, message: $0.message, since: APITime($0.since))
        }
    }
}

extension DeviceDetailBody {
    init(_ device: DeviceSnapshot) {
        summary = DeviceSummaryBody(device)
        members = Members(device)
    }
}

extension DeviceDetailBody.Members {
    init(_ device: DeviceSnapshot) {
        config = device.config.map(ConfigBody.init)
        sync = DeviceDetailBody.Sync(
            status: device.sync.phase, consecutiveFailures: device.sync.consecutiveFailures,
            nextAttemptAt: APITime(optional: device.sync.nextAttemptAt))
        auth = DeviceDetailBody.Auth(
            state: device.auth.state, validUntil: APITime(optional: device.auth.validUntil),
            lastRefreshOutcome: device.auth.lastRefreshOutcome?.description,
            breakerOpenUntil: APITime(optional: device.auth.breakerOpenUntil))
        fixes = device.fixes
        stateHistory = device.stateHistory.map {
            DeviceDetailBody.Change(at: APITime($0.at), state: $0.state.description, cause: $0.cause)
        }
        uploads = device.uploads.reversed().map(UploadRecordBody.init)
        streams = device.streams.reversed().map { StreamRecordBody($0, device: false) }
        world = DeviceDetailBody.World(device.world)
        currentLocationCalls = device.currentLocationCalls
        currentLocation = device.currentLocation.map(DeviceDetailBody.CurrentLocation.init)
    }
}

extension DeviceDetailBody.World {
    init(_ world: DeviceWorld) {
        network = world.network.map(Network.init)
        latencyMillis = world.extraLatencyMillis
        timeoutFraction = world.timeoutFraction
        captivePortal = world.captivePortal
        flapping = world.flapping.map {
            Flapping(
                meanOnlineMillis: $0.meanOnlineMillis, meanOfflineMillis: $0.meanOfflineMillis, handover: $0.handover)
        }
        networkUp = world.flapUp
        doze = world.doze
        standbyBucket = world.standbyBucket
        oemKillsPerDay = world.oemKillsPerDay
        clockOffsetMillis = world.clockOffsetMillis
    }
}

extension DeviceDetailBody.World.Network {
    init(_ profile: NetworkProfile) {
        self.init(
            uplinkKbps: profile.uplinkKbps, latencyMedianMillis: profile.latencyMedianMillis,
            latencyP95Millis: profile.latencyP95Millis, loss: profile.loss, dns: profile.dns, tls: profile.tls,
            resetMidBody: profile.resetMidBody)
    }
}

extension DeviceDetailBody.CurrentLocation {
    init(_ record: CurrentLocationRecord) {
        requestId = record.requestID
        at = APITime(record.at)
        switch record.answer {
        case .fix(let fix):
            answer = .fix
            self.fix = .present(
                Fix(
                    timestamp: APITime(fix.timestamp), latitude: fix.latitude, longitude: fix.longitude,
                    accuracy: fix.accuracy, quality: fix.quality))
        case .timedOut:
            answer = .timedOut
        case .unavailable(let reason):
            answer = .unavailable
            self.reason = .present(reason)
        }
    }
}

extension UploadRecordBody {
    init(_ upload: UploadRecord) {
        at = APITime(upload.at)
        batchId = upload.batchID.text
        fixes = upload.fixes
        outcome = upload.outcome.description
        latencyMs = Rounding.millis(upload.latencyMillis)
        serverMs = upload.serverMillis.map(Rounding.millis)
    }
}

extension StreamRecordBody {
    init(_ record: StreamRecord, device: Bool) {
        if device { self.device = .present(record.device) }
        at = APITime(record.at)
        switch record.value {
        case .syncStatus(let value):
            stream = .syncStatus
            switch value {
            case .idle: status = .present(.idle)
            case .inFlight: status = .present(.inFlight)
            case .succeeded(let count):
                status = .present(.succeeded)
                self.count = .present(count)
            case .retrying(let attempt, let nextAt):
                status = .present(.retrying)
                self.attempt = .present(attempt)
                self.nextAt = .present(APITime(nextAt))
            case .failed(let failure):
                status = .present(.failed)
                reason = .present(failure.rawValue)
            }
        case .authChange(let value):
            stream = .authChanges
            switch value {
            case .seeded(let expiresAt):
                change = .present(.seeded)
                self.expiresAt = .present(APITime(optional: expiresAt))
            case .refreshed(let expiresAt):
                change = .present(.refreshed)
                self.expiresAt = .present(APITime(optional: expiresAt))
            case .deadCredentials: change = .present(.deadCredentials)
            case .breakerOpened(let until):
                change = .present(.breakerOpened)
                self.until = .present(APITime(until))
            }
        }
    }
}

extension StoredLocationBody {
    /// Every row listed is still in the store, which deletes a fix once the server acknowledges
    /// it, so `uploaded` is false.
    init(_ fix: Location) {
        id = fix.id.text
        timestamp = APITime(fix.timestamp)
        latitude = fix.latitude
        longitude = fix.longitude
        accuracy = fix.accuracy
        speed = fix.speed
        trigger = fix.trigger.rawValue
        uploaded = false
    }
}

extension TimelineFaultView.Phase: APIEnum, Encodable {}
extension ActionSource: APIEnum {}
