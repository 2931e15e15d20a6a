import BeekonDevice

extension FleetLoop {
    /// Starts a `gpsJump` on the device's provider until `until`; without a bearing, each jump
    /// draws one from a stream of its own derived from the device's seed, so no existing stream
    /// moves and a seeded run replays.
    mutating func startJump(_ slot: Int, meters: Double, bearing: Double?, until: Int64) {
        var draws = SplitMix64(seed: slots[slot].seed).derived(0x6A5D_0000 &+ slots[slot].world.gpsJumps)
        slots[slot].world.gpsJumps += 1
        let degrees = bearing ?? Double.random(in: 0..<360, using: &draws)
        slots[slot].world.gpsJump = GPSJump(meters: meters, bearing: degrees, until: until)
    }

    /// A `getCurrentLocation` answer: kept as the device's last, counted, and logged at debug.
    mutating func currentLocationAnswered(_ requestID: Int, _ answer: CurrentLocationAnswer, slot: Int, at time: Int64)
    {
        slots[slot].recent.lastCurrentLocation = CurrentLocationRecord(requestID: requestID, at: time, answer: answer)
        noteChange(slot)
        let said: String
        switch answer {
        case .fix(let fix):
            metrics.currentLocation.fix += 1
            said = "a fix at \(fix.latitude), \(fix.longitude)" + (fix.accuracy.map { " (±\($0) m)" } ?? "")
        case .timedOut:
            metrics.currentLocation.timedOut += 1
            said = "timed out"
        case .unavailable(let reason):
            metrics.currentLocation.unavailable += 1
            said = "unavailable (\(reason.rawValue))"
        }
        effects.append(
            .log(FleetLogLine(.debug, "device \(slots[slot].id): getCurrentLocation #\(requestID) answered: \(said)")))
    }
}
