import FleetEngine

/// `--junit FILE`: a run's (or a comparison's) thresholds as JUnit XML, the one test format
/// every CI system renders: a test suite per command, a test case per threshold (a group's
/// threshold is a case of its own), a failure element for each that was not met.
package struct JUnitReport: Sendable {
    /// One threshold, checked.
    package struct Case: Sendable, Hashable {
        var name: String
        package var passed: Bool
        /// What it measured, said for the failure message and the case's output.
        var detail: String
        /// Whether a failure fails the run: the default thresholds count only with `--strict`,
        /// so one that failed uncounted is a skipped case, not a failure.
        var counted: Bool

        package init(name: String, passed: Bool, detail: String, counted: Bool = true) {
            self.name = name
            self.passed = passed
            self.detail = detail
            self.counted = counted
        }

        /// A threshold a run (or a merge, or `verify`) checked.
        package init(_ result: ThresholdResult, counted: Bool) {
            self.init(
                name: result.threshold.expression, passed: result.passed, detail: result.valueText, counted: counted)
        }
    }

    var suite: String
    var cases: [Case]
    /// Real seconds the suite took.
    var seconds: Double

    package init(suite: String, cases: [Case], seconds: Double) {
        self.suite = suite
        self.cases = cases
        self.seconds = seconds
    }

    /// The XML document.
    package var text: String {
        let failures = cases.filter { !$0.passed && $0.counted }.count
        let skipped = cases.filter { !$0.passed && !$0.counted }.count
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml +=
            "<testsuites name=\"beekon-fleet\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\" "
            + "time=\"\(Self.seconds(seconds))\">\n"
        xml +=
            "  <testsuite name=\"\(Self.escaped(suite))\" tests=\"\(cases.count)\" failures=\"\(failures)\" "
            + "errors=\"0\" skipped=\"\(skipped)\" time=\"\(Self.seconds(seconds))\">\n"
        for item in cases {
            let name = Self.escaped(item.name)
            xml += "    <testcase classname=\"thresholds\" name=\"\(name)\" time=\"0\">\n"
            if !item.passed && item.counted {
                xml += "      <failure type=\"threshold\" message=\"\(Self.escaped(item.detail))\"/>\n"
            } else if !item.passed {
                let message = "not met, not counted (the default thresholds count with --strict): " + item.detail
                xml += "      <skipped message=\"\(Self.escaped(message))\"/>\n"
            }
            xml += "      <system-out>\(Self.escaped(item.detail))</system-out>\n"
            xml += "    </testcase>\n"
        }
        return xml + "  </testsuite>\n</testsuites>\n"
    }

    /// Text as XML attribute or element content: the five markup characters as entities, and
    /// the characters XML 1.0 cannot carry at all dropped.
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func seconds(_ value: Double) -> String {
        String((value * 1000).rounded() / 1000)
    }
}
