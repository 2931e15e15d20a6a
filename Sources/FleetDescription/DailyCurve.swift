import BeekonDevice

/// A day of load (`daily:`), as k6's stages repeated every 24 h of virtual time: the share of a
/// group's `count` running at the start of each local hour, ramped in a straight line to the next
/// hour's share (the last hour's to the first's). Local time is the virtual clock's UTC plus
/// `utcOffsetMillis`.
public struct DailyCurve: Sendable, Hashable {
    /// Local time minus UTC, ms (`utcOffset: "+01:00"`).
    public var utcOffsetMillis: Int64
    /// The share of the group's `count` at the start of each local hour, 0 to 1, 24 of them.
    public var shares: [Double]

    public init(utcOffsetMillis: Int64 = 0, shares: [Double]) {
        self.utcOffsetMillis = utcOffsetMillis
        self.shares = shares
    }

    /// The hours in a day, and so the entries `hours:` takes.
    public static let hoursInDay = 24
    /// One hour, ms: each hour's ramp.
    public static let hourMillis: Int64 = 3_600_000
    /// One day, ms: the curve's period.
    public static let dayMillis: Int64 = 86_400_000
    /// An entry of `hours:`: the share of the group's count running.
    public static let shareRange = NumberRange(0...1)
    /// `utcOffset`: the zones in use, −14:00 to +14:00, ms.
    public static let utcOffsetRange = NumberRange.integer(-50_400_000...50_400_000, unit: "ms")
    /// What `utcOffset` looks like, for messages.
    public static let utcOffsetExpected = "an offset from \"-14:00\" to \"+14:00\", such as \"+01:00\" or \"-05:30\""

    /// The devices of a group of `count` running at the start of local hour `hour` (0 to 23): its
    /// share of `count`, to the nearest whole device.
    public func devices(hour: Int, of count: Int) -> Int {
        Int((shares[hour] * Double(count)).rounded())
    }

    /// The latest local midnight at or before `instant` (Unix ms), as a UTC instant.
    public func midnight(atOrBefore instant: Int64) -> Int64 {
        let local = instant + utcOffsetMillis
        let intoDay = ((local % Self.dayMillis) + Self.dayMillis) % Self.dayMillis
        return instant - intoDay
    }

    /// `utcOffset` as a fleet file writes it (`+01:00`, `-05:30`, `+05`, or `Z` for UTC), ms.
    public static func readUTCOffset(_ text: String) throws(NumberProblem) -> Int64 {
        let trimmed = text.trimmingSpaces
        let refused = { (reason: NumberProblem.Reason) in
            NumberProblem(value: trimmed, reason: reason, expected: utcOffsetExpected)
        }
        guard trimmed != "Z" else { return 0 }
        let characters = Array(trimmed)
        let digit = { (at: Int) in characters[at].isASCII && characters[at].isNumber }
        guard characters.count == 3 || characters.count == 6, characters[0] == "+" || characters[0] == "-",
            digit(1), digit(2), characters.count == 3 || (characters[3] == ":" && digit(4) && digit(5))
        else { throw refused(.notANumber) }
        let hours = Int64(String(characters[1...2]))!
        let minutes = characters.count == 6 ? Int64(String(characters[4...5]))! : 0
        guard minutes < 60 else { throw refused(.notANumber) }
        let millis = (characters[0] == "-" ? -1 : 1) * (hours * 60 + minutes) * 60_000
        guard Double(millis) >= utcOffsetRange.lower, Double(millis) <= utcOffsetRange.upper else {
            throw refused(.outOfRange)
        }
        return millis
    }
}

/// New installs of a group arriving at a rate (`arrivals:`): a Poisson process of `perHour` on
/// the virtual clock from the group's start, until `untilMillis` after it (nil: to the run's end).
public struct Arrivals: Sendable, Hashable {
    /// The mean number of new installs an hour.
    public var perHour: Double
    /// How long after the group's start installs arrive, ms; nil: as long as the run lasts.
    public var untilMillis: Int64?

    public init(perHour: Double, untilMillis: Int64? = nil) {
        self.perHour = perHour
        self.untilMillis = untilMillis
    }

    /// `perHour`: 0 to 100 000 new installs an hour.
    public static let perHourRange = NumberRange(0...100_000, unit: "/h")
}
