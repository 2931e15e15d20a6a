/// The SDK's retry timing (spec §6, §7): upload backoff, `Retry-After`, interval floors, and the
/// token-refresh circuit breaker. All durations in milliseconds.
public enum RetrySchedule {
    /// The longest upload backoff: one hour.
    public static let maxBackoffMillis: Int64 = 3_600_000

    /// The wait before the next upload after `failures` consecutive failures:
    /// `interval × 2^min(failures, 4)`, at most an hour.
    public static func backoffMillis(intervalMillis: Int64, failures: Int) -> Int64 {
        guard failures > 0 else { return intervalMillis }
        let multiplier = Int64(1) << Int64(min(failures, 4))
        let (product, overflow) = intervalMillis.multipliedReportingOverflow(by: multiplier)
        return overflow ? maxBackoffMillis : min(product, maxBackoffMillis)
    }

    /// The wait the SDK uses: the backoff, or the server's `Retry-After` when it asks for longer.
    public static func retryDelayMillis(backoffMillis: Int64, retryAfterMillis: Int64?) -> Int64 {
        max(backoffMillis, retryAfterMillis ?? 0)
    }

    /// The scheduled upload cadence after the platform floors: iOS 60 s; Android 60 s in the
    /// foreground and 15 minutes (WorkManager's minimum) in the background.
    public static func effectiveIntervalMillis(
        intervalSeconds: Int, platform: Platform, inBackground: Bool
    ) -> Int64 {
        let requested = Int64(max(intervalSeconds, 0)) * 1000
        let floor: Int64 = platform == .android && inBackground ? 900_000 : 60_000
        return max(requested, floor)
    }

    /// How long the refresh circuit breaker stays open after `failures` consecutive failed
    /// refreshes: closed below 3, then `60 s × 2^(min(n, 7) − 3)`: 60, 120, 240, 480, 960 s.
    public static func breakerMillis(failures: Int) -> Int64? {
        guard failures >= 3 else { return nil }
        return 60_000 << Int64(min(failures, 7) - 3)
    }

    /// The delay a `Retry-After` header asks for, in milliseconds from `now`: either
    /// delta-seconds or an HTTP-date (IMF-fixdate). nil when absent or unreadable.
    public static func retryAfterMillis(_ value: String, now: Int64) -> Int64? {
        let trimmed = value.trimmingSpaces
        if let seconds = Int64(trimmed), seconds >= 0 {
            return seconds.multipliedReportingOverflow(by: 1000).overflow ? nil : seconds * 1000
        }
        guard let instant = httpDateMillis(trimmed) else { return nil }
        return max(0, instant - now)
    }

    /// A `Retry-After` given as an HTTP-date, which is on the server's clock, as the delay it
    /// means there: delta-seconds from `serverNow` (the answer's `Date`, else the wall clock when
    /// it came), which the device then counts on its own clock. Nil when the value is not an
    /// HTTP-date (delta-seconds mean the same on every clock; an unreadable value stays so).
    public static func retryAfterDelay(_ value: String, serverNow: Int64) -> String? {
        guard let instant = httpDateMillis(value.trimmingSpaces) else { return nil }
        return String((max(0, instant - serverNow) + 999) / 1000)
    }

    /// Unix milliseconds for an IMF-fixdate such as `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func httpDateMillis(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int64(parts[1]),
            let monthIndex = months.firstIndex(of: String(parts[2])), let year = Int64(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let hour = Int64(clock[0]), let minute = Int64(clock[1]),
            let second = Int64(clock[2]), (1...31).contains(day), hour < 24, minute < 60,
            second < 61
        else { return nil }
        let days = Timestamp.daysSinceEpoch(year: year, month: Int64(monthIndex + 1), day: day)
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000
    }

    private static let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
}
