import BeekonDevice

/// The figures a benchmark measured, printed as aligned text or as one JSON object.
///
/// Every benchmark reports through this, so `--json` has the same shape everywhere.
struct BenchReport {
    struct Figure {
        let key: String
        let label: String
        let value: Double
        let unit: String
    }

    let title: String
    private(set) var figures: [Figure] = []
    private(set) var notes: [String] = []

    init(title: String) {
        self.title = title
    }

    /// Adds a figure; `key` is its JSON name.
    mutating func add(_ key: String, _ label: String, _ value: Double, unit: String) {
        figures.append(Figure(key: key, label: label, value: value, unit: unit))
    }

    /// Adds a line of context (settings, machine) to the text form.
    mutating func note(_ line: String) {
        notes.append(line)
    }

    /// The report as text, or as one JSON object of `key: value`.
    func render(json: Bool) -> String {
        if json {
            var writer = JSONWriter()
            writer.beginObject()
            for figure in figures {
                writer.key(figure.key)
                // Rates and times are rounded to what the measurement can tell apart; a
                // sub-millisecond latency keeps its microseconds.
                writer.number(figure.value.rounded(places: abs(figure.value) < 10 ? 3 : 1))
            }
            writer.endObject()
            return String(decoding: writer.bytes, as: UTF8.self)
        }
        let width = figures.map(\.label.count).max() ?? 0
        var lines = [title]
        for figure in figures {
            let padding = String(repeating: " ", count: width - figure.label.count)
            lines.append("  \(figure.label)\(padding)  \(Self.format(figure.value)) \(figure.unit)")
        }
        lines.append(contentsOf: notes.map { "  \($0)" })
        return lines.joined(separator: "\n")
    }

    private static func format(_ value: Double) -> String {
        // A count (bombs answered, connections opened) prints whole, not as 4.0.
        if value.rounded() == value { return String(format: "%.0f", value) }
        return switch abs(value) {
        case 100...: String(format: "%.0f", value)
        case 1...: String(format: "%.1f", value)
        default: String(format: "%.3f", value)
        }
    }
}
