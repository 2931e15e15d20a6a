import Foundation

/// Durations as fleet files and the CLI write them: `90s`, `10m`, `1h30m`, `500ms`, `2d`, or
/// a bare number of seconds.
public enum FleetDuration {
    /// Milliseconds for `text`; nil when it is not a duration.
    public static func millis(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        if let seconds = Double(trimmed), seconds.isFinite, seconds >= 0 {
            return Int64((seconds * 1000).rounded())
        }
        var total = 0.0
        var number = ""
        var unit = ""
        var parts: [(Double, String)] = []
        func flush() -> Bool {
            guard !number.isEmpty, let value = Double(number), !unit.isEmpty else { return false }
            parts.append((value, unit))
            number = ""
            unit = ""
            return true
        }
        for character in trimmed {
            if character.isNumber || character == "." {
                if !unit.isEmpty, !flush() { return nil }
                number.append(character)
            } else if character.isLetter {
                guard !number.isEmpty else { return nil }
                unit.append(character)
            } else {
                return nil
            }
        }
        guard flush() else { return nil }
        for (value, unit) in parts {
            let scale: Double
            switch unit {
            case "ms": scale = 1
            case "s": scale = 1000
            case "m", "min": scale = 60_000
            case "h": scale = 3_600_000
            case "d": scale = 86_400_000
            default: return nil
            }
            total += value * scale
        }
        return total.isFinite ? Int64(total.rounded()) : nil
    }
}
