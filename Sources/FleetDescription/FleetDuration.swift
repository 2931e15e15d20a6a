import BeekonDevice

/// Durations as fleet files and the CLI write them: `90s`, `10m`, `1h30m`, `500ms`, `2d`, or
/// a bare number of seconds; from 0 to 366 days (a year of virtual time, leap day included).
public enum FleetDuration {
    /// The durations every surface accepts, in ms: 0 to 366 days.
    public static let range = NumberRange.integer(0...31_622_400_000, unit: "ms")
    /// Any finite number: each part of a duration, whose total is then checked against `range`.
    static let anyNumber = NumberRange(-Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
    /// What a duration looks like, for messages.
    public static let expected = "a duration from 0s to 366d, such as 90s, 10m, 1h30m or 500ms"
    /// A run's length on the virtual clock (the fleet file's `duration`, `run --for`): as `range`,
    /// but above 0, since a run that ends before it starts is a mistake.
    public static let runLengthRange = NumberRange.integer(1...Int64(range.upper), unit: "ms")
    /// What a run length looks like, for messages.
    public static let runLengthExpected = "a duration from 1ms to 366d, such as 30m, 8h or 2d"

    /// Milliseconds for `text`, rounded to the ms; refused when it is not a duration, or is
    /// outside `range` (the problem's `expected` is `FleetDuration.expected`).
    public static func read(_ text: String) throws(NumberProblem) -> Int64 {
        try read(text, range, expected)
    }

    /// Milliseconds for a run length, read as `read(_:)` reads a duration but checked against
    /// `runLengthRange` (the problem's `expected` is `FleetDuration.runLengthExpected`).
    public static func readRunLength(_ text: String) throws(NumberProblem) -> Int64 {
        try read(text, runLengthRange, runLengthExpected)
    }

    /// Milliseconds for a duration that may be written with a sign (`-5m`, `+90s`), checked
    /// against `range` (which may go below 0); `expected` says what the field takes.
    public static func readSigned(
        _ text: String, within range: NumberRange, expected: String
    ) throws(NumberProblem) -> Int64 {
        var rest = Substring(text.drop { $0 == " " || $0 == "\t" })
        var sign: Int64 = 1
        if let first = rest.first, first == "-" || first == "+" {
            sign = first == "-" ? -1 : 1
            rest = rest.dropFirst()
        }
        let magnitude = NumberRange.integer(0...Int64(max(-range.lower, range.upper)), unit: range.unit)
        let value: Int64
        do throws(NumberProblem) {
            value = sign * (try read(String(rest), magnitude, expected))
        } catch {
            throw NumberProblem(value: text.trimmingSpaces, reason: error.reason, expected: expected)
        }
        guard Double(value) >= range.lower, Double(value) <= range.upper else {
            throw NumberProblem(value: text.trimmingSpaces, reason: .outOfRange, expected: expected)
        }
        return value
    }

    /// `read`'s and `readRunLength`'s one parser: the text, then its total against `range`.
    private static func read(_ text: String, _ range: NumberRange, _ expected: String) throws(NumberProblem) -> Int64 {
        let trimmed = String(
            text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        func refused(_ reason: NumberProblem.Reason) -> NumberProblem {
            NumberProblem(value: trimmed, reason: reason, expected: expected)
        }
        var parts: [(number: String, unit: String)] = []
        if let first = trimmed.first, first.isASCII, first.isNumber || first == "." || first == "-" || first == "+",
            trimmed.allSatisfy({ $0.isASCII && !$0.isLetter || $0 == "e" || $0 == "E" })
        {
            parts = [(trimmed, "s")]  // a bare number of seconds (`90`, `1.5`, `1e3`)
        } else {
            var number = ""
            var unit = ""
            for character in trimmed {
                guard character.isASCII, character.isNumber || character == "." || character.isLetter else {
                    throw refused(.notANumber)
                }
                if character.isLetter {
                    guard !number.isEmpty else { throw refused(.notANumber) }
                    unit.append(character)
                } else {
                    if !unit.isEmpty {
                        parts.append((number, unit))
                        (number, unit) = ("", "")
                    }
                    number.append(character)
                }
            }
            guard !number.isEmpty, !unit.isEmpty else { throw refused(.notANumber) }
            parts.append((number, unit))
        }
        var total = 0.0
        for part in parts {
            let scale: Double
            switch part.unit {
            case "ms": scale = 1
            case "s": scale = 1000
            case "m", "min": scale = 60_000
            case "h": scale = 3_600_000
            case "d": scale = 86_400_000
            default: throw refused(.notANumber)
            }
            do throws(NumberProblem) {
                // Each part is a plain decimal; its size is checked on the total below.
                total += try anyNumber.read(part.number) * scale
            } catch {
                throw refused(error.reason)
            }
        }
        guard total.isFinite else { throw refused(.notFinite) }
        guard total >= range.lower, total.rounded() <= range.upper else { throw refused(.outOfRange) }
        return Int64(total.rounded())
    }

    /// A measured duration for people: `4.87ms`, `850ms`, `12.5s`, `6m00.7s`, `2h05m03s`. The one
    /// place a duration is rounded for the summary and the thresholds' values.
    public static func display(millis: Double) -> String {
        guard millis.isFinite else { return "\(millis)ms" }
        if millis < 10 { return String(format: "%.2fms", millis) }
        if millis < 1000 { return String(format: "%.0fms", millis) }
        let tenths = Int64((millis / 100).rounded())
        if tenths < 600 { return String(format: "%.1fs", Double(tenths) / 10) }
        if tenths < 36_000 {
            return String(format: "%lldm%04.1fs", tenths / 600, Double(tenths % 600) / 10)
        }
        let seconds = tenths / 10
        return String(format: "%lldh%02lldm%02llds", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }

    /// `millis` as a fleet file would write it, largest unit first: `30m`, `1h30m`, `2d`, `1s500ms`,
    /// `0s`; `read(_:)` reads it back to the same value.
    public static func text(millis: Int64) -> String {
        guard millis > 0 else { return "0s" }
        var rest = millis
        var text = ""
        for (unit, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1)]
        where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        return text
    }
}
