import JSON
import Testing

/// The one JSON parser, through a builder that records what it was handed.
@Suite("JSON parser")
struct JSONParserTests {
    /// A tree that keeps every value's start offset and every member's key offset.
    indirect enum Tree: Hashable {
        case scalar(JSONScalar, at: Int)
        case array([Tree], at: Int)
        case object([String], keyOffsets: [Int], [Tree], at: Int)
    }

    struct Recorder: JSONBuilder {
        var marks: [Int] = []

        mutating func mark(_ offset: Int) -> Int {
            marks.append(offset)
            return offset
        }

        func scalar(_ scalar: JSONScalar, at offset: Int) -> Tree { .scalar(scalar, at: offset) }
        func array(_ items: [Tree], at offset: Int) -> Tree { .array(items, at: offset) }
        func object(_ members: [JSONMember<Tree>], at offset: Int) -> Tree {
            .object(members.map(\.key), keyOffsets: members.map(\.keyOffset), members.map(\.value), at: offset)
        }
    }

    static func parse(_ text: String, maxDepth: Int = 8, maxElements: Int = .max) throws(JSONSyntaxError) -> (
        Tree, [Int]
    ) {
        var recorder = Recorder()
        let tree = try JSONParser(maxDepth: maxDepth, maxElements: maxElements).parse(
            Array(text.utf8), into: &recorder)
        return (tree, recorder.marks)
    }

    @Test("every value is marked as it starts, in document order; members keep their order, twins included")
    func marksAndMembers() throws {
        let (tree, marks) = try Self.parse(#" {"b": [1, "x"], "a": {}, "b": null} "#)
        #expect(marks == [1, 7, 8, 11, 22, 31])
        #expect(
            tree
                == .object(
                    ["b", "a", "b"], keyOffsets: [2, 17, 26],
                    [
                        .array([.scalar(.number("1"), at: 8), .scalar(.string("x"), at: 11)], at: 7),
                        .object([], keyOffsets: [], [], at: 22), .scalar(.null, at: 31),
                    ], at: 1))
    }

    @Test(
        "what is not JSON is refused with what is wrong and the byte where it is",
        arguments: [
            ("", JSONSyntaxError.Kind.endsEarly(expected: "a value"), 0),
            ("[1 2]", .unexpected(found: UInt8(ascii: "2"), expected: "',' or ']'"), 3),
            (#"{"a" 1}"#, .unexpected(found: UInt8(ascii: "1"), expected: "':'"), 5),
            ("[1] x", .dataAfterValue, 4),
            ("[01]", .leadingZero, 1),
            (#"["ab"#, .stringNeverEnds, 1),
            ("[\"a\u{1}\"]", .controlCharacter(1), 3),
            (#"["a\x"]"#, .unknownEscape(UInt8(ascii: "x")), 3),
            (#"["a\u12"]"#, .shortUnicodeEscape, 3),
            (#"[" \ud800 "]"#, .loneSurrogate(0xD800), 3),
            ("[[[[[[[[[1]]]]]]]]]", .tooDeep(limit: 8), 8),
            (String(repeating: "1", count: 65), .numberTooLong(limit: 64), 0),
        ])
    func refusals(text: String, kind: JSONSyntaxError.Kind, offset: Int) {
        #expect(throws: JSONSyntaxError(offset: offset, kind: kind)) { try Self.parse(text) }
    }

    @Test("the element limit counts every value, containers too, as it is read", arguments: [(4, true), (3, false)])
    func elementLimit(limit: Int, accepted: Bool) {
        let result = Result { () throws(JSONSyntaxError) in try Self.parse("[1, 2, 3]", maxElements: limit) }
        #expect(((try? result.get()) != nil) == accepted)
    }
}
