import FleetDescription

/// Where Android's deep Doze has a phone (AOSP's `DeviceIdleController`, deep states only): active
/// while it moves; still since an instant; idle, its apps without the network, until a maintenance
/// window; in a window, the network back, until the next idle stretch (each twice the last, up to
/// 6 h). Moving ends it at once. Pure and drawn from nothing (AOSP's timing is fixed), so a fleet
/// without doze draws nothing new.
struct DozeCycle: Equatable {
    enum Phase: Equatable {
        case active
        /// Still since this instant (virtual ms).
        case still(since: Int64)
        /// Idle until the window at `until`; `stretch` is this idle stretch's length.
        case idle(until: Int64, stretch: Int64)
        /// In a maintenance window until `until`, then idle for `next`.
        case window(until: Int64, next: Int64)
    }

    private(set) var phase = Phase.active

    /// How often the phone's motion is looked at while doze is on: stillness and motion are
    /// noticed within a virtual minute.
    static let motionCheckMillis: Int64 = 60_000

    /// Whether its apps are without the network now (idle, outside a window).
    var blocksNetwork: Bool {
        if case .idle = phase { return true }
        return false
    }

    /// Whether the phone is in deep Doze (idle or in a window): location comes coarser.
    var dozing: Bool {
        switch phase {
        case .idle, .window: true
        case .active, .still: false
        }
    }

    /// The phone's motion at `time`, under `doze`: moving ends doze; still starts (or keeps) the
    /// count towards idle, and a phase whose time has come moves on. Whether the apps' network
    /// changed (blocked or unblocked).
    mutating func look(moving: Bool, at time: Int64, _ doze: Doze) -> Bool {
        let blocked = blocksNetwork
        if moving {
            phase = .active
        } else {
            switch phase {
            case .active:
                phase = .still(since: time)
            case .still(let since) where time >= since + doze.afterMillis:
                phase = .idle(until: time + Doze.firstIdleMillis, stretch: Doze.firstIdleMillis)
            case .idle(let until, let stretch) where time >= until:
                phase = .window(until: time + doze.windowMillis, next: min(stretch * 2, Doze.longestIdleMillis))
            case .window(let until, let next) where time >= until:
                phase = .idle(until: time + next, stretch: next)
            case .still, .idle, .window:
                break
            }
        }
        return blocked != blocksNetwork
    }

    /// When to look again: at the next phase change or a minute on, whichever is sooner.
    func nextLook(after time: Int64, _ doze: Doze) -> Int64 {
        let change: Int64
        switch phase {
        case .active: change = .max
        case .still(let since): change = since + doze.afterMillis
        case .idle(let until, _), .window(let until, _): change = until
        }
        return min(change, time + Self.motionCheckMillis)
    }
}
