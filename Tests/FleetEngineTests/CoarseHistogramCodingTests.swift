import Foundation
import Testing

@testable import FleetEngine

/// A history row's histograms as a report's merge state holds them: a string of the slots that
/// counted, read back to the same counts; anything else refused with what was expected.
@Suite("Coarse histogram coding")
struct CoarseHistogramCodingTests {
    static func histogram(_ millis: [Double]) -> CoarseHistogram {
        var histogram = CoarseHistogram()
        for value in millis { histogram.record(value) }
        return histogram
    }

    @Test(
        "recorded durations round-trip through JSON, percentiles and all",
        arguments: [[], [0.5], [3, 3, 3, 400, 90_000], [1e12, 7, 7]])
    func roundTrip(millis: [Double]) throws {
        let histogram = Self.histogram(millis)
        let json = try JSONEncoder().encode([histogram])
        let back = try JSONDecoder().decode([CoarseHistogram].self, from: json)
        #expect(back == [histogram])
        #expect(back[0].count == millis.count && back[0].percentile(0.99) == histogram.percentile(0.99))
    }

    @Test(
        "what is not slot:count pairs, a slot out of range or a count of 0 is refused",
        arguments: ["[\"x\"]", "[\"3\"]", "[\"3:\"]", "[\"41:1\"]", "[\"-1:2\"]", "[\"2:0\"]", "[\"2:1,\"]", "[7]"])
    func refused(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([CoarseHistogram].self, from: Data(json.utf8)) }
    }
}
