import Testing

@testable import BeekonDevice

@Suite("NumberRange")
struct NumberRangeTests {
    static let warp = NumberRange(0.01...10_000)
    static let count = NumberRange.integer(1...100_000, unit: "devices")

    @Test(
        "a real range reads decimal text in range and refuses the rest, saying why",
        arguments: [
            ("1", 1.0, nil), ("0.01", 0.01, nil), ("10000", 10_000, nil), (" 60 ", 60, nil), ("1e3", 1000, nil),
            ("1_000", 1000, nil), ("nan", nil, .notANumber), ("NaN", nil, .notANumber), ("inf", nil, .notANumber),
            ("-inf", nil, .notANumber), ("infinity", nil, .notANumber), ("0x1p3", nil, .notANumber),
            ("x", nil, .notANumber),
            ("", nil, .notANumber), ("1e", nil, .notANumber), ("--1", nil, .notANumber), ("1e400", nil, .notFinite),
            ("1e300", nil, .outOfRange), ("5e-324", nil, .outOfRange), ("1e-12", nil, .outOfRange),
            ("0", nil, .outOfRange),
            ("-1", nil, .outOfRange), ("10000.5", nil, .outOfRange), ("9223372036854775808", nil, .outOfRange),
        ] as [(String, Double?, NumberProblem.Reason?)])
    func readsReal(text: String, value: Double?, reason: NumberProblem.Reason?) {
        var refused: NumberProblem?
        do { #expect(try Self.warp.read(text) == value) } catch { refused = error }
        #expect(
            refused
                == reason.map {
                    NumberProblem(value: text.filter { $0 != " " }, reason: $0, expected: Self.warp.description)
                })
    }

    @Test(
        "a whole-number range reads integers exactly: no fractions, exponents or overflow",
        arguments: [
            ("1", 1, nil), ("100000", 100_000, nil), ("+5", 5, nil), ("0", nil, .outOfRange), ("-1", nil, .outOfRange),
            ("100001", nil, .outOfRange), ("1.0", nil, .notWhole), ("1e3", nil, .notWhole), ("1e16", nil, .notWhole),
            ("9223372036854775808", nil, .outOfRange), ("99999999999999999999999", nil, .outOfRange),
            ("x", nil, .notANumber),
            ("nan", nil, .notANumber), ("inf", nil, .notANumber), ("", nil, .notANumber),
        ] as [(String, Int64?, NumberProblem.Reason?)])
    func readsInteger(text: String, value: Int64?, reason: NumberProblem.Reason?) {
        var refused: NumberProblem?
        do { #expect(try Self.count.readInteger(text) == value) } catch { refused = error }
        #expect(refused == reason.map { NumberProblem(value: text, reason: $0, expected: Self.count.description) })
    }

    @Test(
        "a value already read as a number is checked the same way",
        arguments: [
            (Double.nan, NumberProblem.Reason?.some(.notFinite)), (.infinity, .notFinite), (-.infinity, .notFinite),
            (1e300, .outOfRange), (.leastNonzeroMagnitude, .outOfRange), (-1, .outOfRange), (0, .outOfRange),
            (9.223372036854776e18, .outOfRange),
            (2.5, .notWhole), (50, nil),
        ])
    func checksNumbers(value: Double, reason: NumberProblem.Reason?) {
        var refused: NumberProblem.Reason?
        do { _ = try Self.count.check(value) } catch { refused = error.reason }
        #expect(refused == reason)
    }

    @Test("messages name the value as written and the range with its unit")
    func messages() {
        #expect(Self.warp.description == "a number from 0.01 to 10000")
        #expect(Self.count.description == "a whole number from 1 to 100000 devices")
        #expect(throws: NumberProblem.self) { try Self.warp.read("1e300") }
        do { _ = try Self.warp.read("1e300") } catch {
            #expect(error.description == "\"1e300\" is out of range; expected a number from 0.01 to 10000")
        }
    }
}
