import FleetDescription
import Testing

/// What the run says to people: durations in their largest sensible unit, and the name a
/// misspelt key or action was meant to be (issue #35, item 6).
@Suite("Plain words: durations and suggestions")
struct PlainWordsTests {
    @Test(
        "a measured duration reads in its largest sensible unit",
        arguments: [
            (4.874, "4.87ms"), (850.4, "850ms"), (999.4, "999ms"), (1_000, "1.0s"), (12_549, "12.5s"),
            (59_949, "59.9s"), (59_960, "1m00.0s"), (360_710.1, "6m00.7s"), (3_599_940, "59m59.9s"),
            (3_599_960, "1h00m00s"), (7_503_000, "2h05m03s"),
        ])
    func duration(millis: Double, text: String) {
        #expect(FleetDuration.display(millis: millis) == text)
    }

    @Test(
        "a misspelt name is matched to the known one at most 2 edits away, none when none is near",
        arguments: [
            ("spred", "spread"), ("Spread", nil), ("sprade", "spread"), ("rout", "route"), ("kil", "kill"),
            ("reboto", "reboot"), ("latncy", "latency"), ("xyz", nil), ("speedFactr", "speedFactor"),
            ("count", nil),
        ] as [(String, String?)])
    func suggestion(typed: String, meant: String?) {
        let names = ["spread", "route", "kill", "reboot", "latency", "speedFactor", "count", "config"]
        #expect(NameSuggestion.nearest(to: typed, among: names) == meant)
    }
}
