import Testing

@testable import IngestReceiver

/// The receiver's JSON parser: strict RFC 8259, numbers kept as written, limits checked as it reads.
@Suite("Bounded JSON parser")
struct BoundedJSONParserTests {
    let parser = BoundedJSONParser(maxDepth: 8, maxElements: 1000)

    @Test(
        "valid JSON is read, strings unescaped and numbers kept as written",
        arguments: [
            (
                #"{"a": [1, -0.5, 2e-3, 1E+2], "b": null}"#,
                JSONNode.object([
                    "a": .array([.number("1"), .number("-0.5"), .number("2e-3"), .number("1E+2")]), "b": .null,
                ])
            ),
            (#" [true, false, {}, []] "#, .array([.bool(true), .bool(false), .object([:]), .array([])])),
            (#""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00z""#, .string("a\"\\/\u{8}\u{c}\n\r\té😀z")),
            (#""café ☕""#, .string("café ☕")),
            ("9223372036854775808", .number("9223372036854775808")),
        ])
    func valid(text: String, expected: JSONNode) throws {
        #expect(try parser.parse(Array(text.utf8)) == expected)
    }

    @Test(
        "invalid JSON is refused with the reason and the byte",
        arguments: [
            ("", "ends early"), ("[1,]", "expected a value"), ("{\"a\":1,}", "expected a key"), ("01", "leading zero"),
            ("1.", "a digit after '.'"), ("-", "expected a digit"), ("+1", "expected a value"),
            ("[1] x", "data after the value"),
            ("{\"a\":1,\"a\":2}", "duplicate key \"a\""), (#""\ud800""#, "lone UTF-16 surrogate"),
            (#""\udc00x""#, "lone UTF-16 surrogate"), ("\"a\tb\"", "control character"), (#""\x""#, "unknown escape"),
            ("NaN", "expected a value"), ("[1 2]", "expected ',' or ']'"), ("\"abc", "never ends"),
            ("tru", "expected true"),
            ("[[[[[[[[[1]]]]]]]]]", "nested deeper than 8 levels (the depth limit)"),
        ])
    func invalid(text: String, reason: String) {
        do {
            let value = try parser.parse(Array(text.utf8))
            Issue.record("accepted \(text) as \(value)")
        } catch {
            #expect(error.description.contains(reason), "\(text): \(error)")
        }
    }

    @Test("the element limit is checked as values are read", arguments: [999, 1000, 1001])
    func elements(count: Int) {
        let text = "[" + Array(repeating: "1", count: count - 1).joined(separator: ",") + "]"
        let result = Result { () throws(JSONProblem) in try parser.parse(Array(text.utf8)) }
        let accepted = (try? result.get()) != nil
        #expect(accepted == (count <= 1000))
    }

    @Test(
        "invalid UTF-8 in a string is refused",
        arguments: [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x82]] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) {
        let body = Array(#"{"a": "x"#.utf8) + bytes + Array(#""}"#.utf8)
        #expect(throws: JSONProblem.self) { try parser.parse(body) }
    }
}
