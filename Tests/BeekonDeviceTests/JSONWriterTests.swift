import Testing

@testable import BeekonDevice

@Suite("JSON writer")
struct JSONWriterTests {
    @Test("commas separate members and elements, and nesting closes cleanly")
    func structure() {
        var json = JSONWriter()
        json.beginObject()
        json.key("a")
        json.beginArray()
        json.integer(1)
        json.beginObject()
        json.endObject()
        json.beginArray()
        json.endArray()
        json.bool(true)
        json.endArray()
        json.key("b")
        json.string("x")
        json.endObject()
        #expect(String(decoding: json.bytes, as: UTF8.self) == #"{"a":[1,{},[],true],"b":"x"}"#)
    }

    @Test(
        "integers, including the extremes, are written exactly",
        arguments: [
            0, 1, -1, 9, 10, 99, 100, 1_781_526_896_789, Int64.max, Int64.min,
        ] as [Int64])
    func integers(value: Int64) {
        var json = JSONWriter()
        json.integer(value)
        #expect(String(decoding: json.bytes, as: UTF8.self) == String(value))
    }

    @Test(
        "numbers: integral without a decimal point, negative zero as 0, huge ones in exponent form",
        arguments: [
            (180.0, "180"), (-0.0, "0"), (1e15, "1000000000000000"), (1e300, "1e+300"), (-2.5, "-2.5"),
        ] as [(Double, String)])
    func numbers(value: Double, text: String) {
        var json = JSONWriter()
        json.number(value)
        #expect(String(decoding: json.bytes, as: UTF8.self) == text)
    }
}
