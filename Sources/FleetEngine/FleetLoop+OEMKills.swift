import BeekonDevice
import FleetDescription

extension FleetLoop {
    /// The key of the OEM-kill stream, derived from a device's seed ("OEMK").
    static let oemKillStreamKey: UInt64 = 0x4F45_4D4B

    /// At a device's first spawn its battery manager starts to kill, if its group's `oemKills:`
    /// (or an `oemKills` action that came before the spawn) gives its phone a rate: the phone's
    /// manager, so it goes on through the app's deaths and reinstalls.
    mutating func startOEMKills(_ slot: Int, at time: Int64) {
        guard slots[slot].os.oemKillDraws == nil, slots[slot].os.oemKillsPerDay > 0 else { return }
        slots[slot].os.oemKillDraws = SplitMix64(seed: slots[slot].seed).derived(Self.oemKillStreamKey)
        scheduleOEMKill(slot, at: time)
    }

    /// An `oemKills` action: the phone's rate from now (its group's own for `nil`). Being a
    /// Poisson clock, the next kill is drawn anew under the new rate.
    mutating func setOEMKills(_ slot: Int, _ kills: OEMKills?, at time: Int64) {
        let identity = slots[slot].identity
        slots[slot].os.oemKillsPerDay =
            kills?.killsPerDay(platform: identity.platform, model: identity.model) ?? 0
        schedule.timers.cancel(.oemKill(slot))
        guard slots[slot].os.oemKillDraws != nil else {
            if slots[slot].device != nil || slots[slot].os.awaitingOpen { startOEMKills(slot, at: time) }
            return
        }
        scheduleOEMKill(slot, at: time)
    }

    /// A battery manager's kill is due: a live app's process dies as at a `kill` (WorkManager
    /// relaunches it, as its bucket lets it); one dead, standing by or not yet opened is spared.
    /// The next kill is drawn.
    mutating func oemKillDue(_ slot: Int, at time: Int64) {
        guard !slots[slot].removed, slots[slot].os.oemKillsPerDay > 0 else { return }
        if slots[slot].os.processAlive, !slots[slot].standingBy, slots[slot].device != nil {
            metrics.oemKills += 1
            takeDown(slot, outage(slot, .kill, delayMillis: nil, since: time), at: time)
        }
        scheduleOEMKill(slot, at: time)
    }

    private mutating func scheduleOEMKill(_ slot: Int, at time: Int64) {
        let perDay = slots[slot].os.oemKillsPerDay
        guard perDay > 0, var draws = slots[slot].os.oemKillDraws else { return }
        let wait = Exponential.millis(mean: 86_400_000 / perDay, using: &draws)
        slots[slot].os.oemKillDraws = draws
        schedule.timers.schedule((), key: .oemKill(slot), at: time + wait)
    }
}
