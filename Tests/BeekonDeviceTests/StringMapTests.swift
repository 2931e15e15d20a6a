import Foundation
import Testing

@testable import BeekonDevice

@Suite("String map")
struct StringMapTests {
    @Test("keeps insertion order; setting an existing key replaces it in place; nil removes")
    func order() {
        var map: StringMap = ["b": "1", "a": "2"]
        map["c"] = "3"
        map["b"] = "9"
        #expect(map.map(\.key) == ["b", "a", "c"])
        #expect(map["b"] == "9")
        map["a"] = nil
        #expect(map.map(\.key) == ["b", "c"])
        #expect(map.count == 2)
        #expect(StringMap([("x", "1"), ("x", "2")]) == ["x": "2"])
    }

    @Test("order survives a JSON round trip")
    func codable() throws {
        let map: StringMap = ["z": "1", "a": "2", "m": "\u{0}\"é"]
        let decoded = try JSONDecoder().decode(StringMap.self, from: JSONEncoder().encode(map))
        #expect(decoded == map)
        #expect(decoded.map(\.key) == ["z", "a", "m"])
    }
}
