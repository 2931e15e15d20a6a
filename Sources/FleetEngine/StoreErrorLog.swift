import BeekonStore

/// Store errors for the log, at most one line per cause per real minute, each line telling how
/// many more of that cause it stands for.
///
/// A real minute, not a virtual one: the point is that stderr is never flooded, and at warp
/// 3000 a virtual minute lasts 20 ms, which would let tens of thousands of lines a minute
/// through, while at warp 0.1 it would hold back a real ten minutes of news.
package struct StoreErrorLog {
    /// Per cause: when its current minute started (real ns) and errors held back in it.
    private var windows: [StoreError.Kind: (start: UInt64, suppressed: Int)] = [:]

    static let windowNanos: UInt64 = 60_000_000_000

    /// The line for `error` of device `id`, or nil when its cause already had its line this minute.
    mutating func report(_ error: StoreError, device id: String, realNanos: UInt64) -> String? {
        let cause = error.kind
        if let window = windows[cause], realNanos &- window.start < Self.windowNanos {
            windows[cause]?.suppressed += 1
            return nil
        }
        var line = "device \(id): \(error)"
        if let held = windows[cause]?.suppressed, held > 0 {
            line += "; and \(Self.grouped(held)) more store errors (\(cause.rawValue)) in the last minute"
        }
        windows[cause] = (realNanos, 0)
        return line
    }

    /// The lines for what is still held back, at the end of the run.
    mutating func flush() -> [String] {
        var lines: [String] = []
        for (cause, window) in windows.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where window.suppressed > 0 {
            lines.append(
                "and \(Self.grouped(window.suppressed)) more store errors (\(cause.rawValue)) in the last minute")
            windows[cause]?.suppressed = 0
        }
        return lines
    }

    /// 4211 as `4,211`.
    package static func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return text
    }
}
