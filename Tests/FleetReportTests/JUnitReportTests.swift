import Foundation
import Testing

@testable import FleetReport

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `--junit`: thresholds as JUnit XML that CI systems read: a case each, failures marked,
/// markup escaped, and a document an XML parser accepts.
@Suite("JUnit report of thresholds")
struct JUnitReportTests {
    static let report = JUnitReport(
        suite: "beekon-fleet report compare a.json b.json",
        cases: [
            .init(name: "server.latency.p99 < +10%", passed: false, detail: "+17.6% (13.1 → 15.4 ms)"),
            .init(name: "fixes.lost{group: walkers} == 0", passed: true, detail: "0"),
            .init(name: "odd <name> & \"quotes\"\u{1}", passed: true, detail: "x"),
        ], seconds: 12.3456)

    @Test("a case per threshold, a failure for each not met, counts on the suite")
    func structure() throws {
        let document = try XMLDocument(data: Data(Self.report.text.utf8))
        let suite = try #require(try document.nodes(forXPath: "/testsuites/testsuite").first as? XMLElement)
        #expect(suite.attribute(forName: "tests")?.stringValue == "3")
        #expect(suite.attribute(forName: "failures")?.stringValue == "1")
        #expect(suite.attribute(forName: "time")?.stringValue == "12.346")
        let cases = try document.nodes(forXPath: "//testcase")
        #expect(cases.count == 3)
        let failures = try document.nodes(forXPath: "//testcase/failure")
        #expect(failures.count == 1)
        let failed = try #require(failures.first?.parent as? XMLElement)
        #expect(failed.attribute(forName: "name")?.stringValue == "server.latency.p99 < +10%")
    }

    @Test("markup in a name is escaped and a control character dropped: the document still parses")
    func escaping() throws {
        let document = try XMLDocument(data: Data(Self.report.text.utf8))
        let names = try document.nodes(forXPath: "//testcase/@name").compactMap(\.stringValue)
        #expect(names.contains("odd <name> & \"quotes\""))
    }

    @Test("a default threshold that failed uncounted (no --strict) is a skipped case, not a failure")
    func uncounted() throws {
        let report = JUnitReport(
            suite: "beekon-fleet run",
            cases: [
                .init(name: "fixes.lost == 0", passed: false, detail: "3", counted: false),
                .init(name: "upload.errors.rate < 0.05", passed: true, detail: "0.01", counted: false),
            ], seconds: 1)
        let document = try XMLDocument(data: Data(report.text.utf8))
        let suite = try #require(try document.nodes(forXPath: "/testsuites/testsuite").first as? XMLElement)
        #expect(suite.attribute(forName: "failures")?.stringValue == "0")
        #expect(suite.attribute(forName: "skipped")?.stringValue == "1")
        #expect(try document.nodes(forXPath: "//testcase/failure").isEmpty)
        #expect(try document.nodes(forXPath: "//testcase/skipped").count == 1)
    }
}
