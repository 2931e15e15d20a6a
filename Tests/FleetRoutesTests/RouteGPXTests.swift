import Testing

@testable import FleetRoutes

@Suite("Route+GPX")
struct RouteGPXTests {
    /// The printed error for parsing `text` as `walk.gpx`.
    func error(_ text: String) -> String? {
        routeErrorText { () throws(RouteError) in try Route.parse(gpx: text, file: "walk.gpx") }
    }

    /// A GPX document whose single segment holds `points` (one `<trkpt>` element per entry).
    func document(_ points: [String]) -> String {
        "<gpx version=\"1.1\">\n<trk><trkseg>\n" + points.joined(separator: "\n")
            + "\n</trkseg></trk>\n</gpx>\n"
    }

    @Test("tracks, segments and route points join in order with elevation and times")
    func happyPath() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
              <metadata><name>Morning walk</name><time>2020-01-01T00:00:00Z</time></metadata>
              <wpt lat="10" lon="10"><name>cafe</name></wpt>
              <trk>
                <name>Track one</name>
                <trkseg>
                  <trkpt lat="51.5" lon="-0.12"><ele>12.5</ele><time>2024-05-01T08:00:00Z</time></trkpt>
                  <trkpt lat="51.5001" lon="-0.1201"><ele>13</ele><time>2024-05-01T08:00:10.123456Z</time></trkpt>
                </trkseg>
                <trkseg>
                  <trkpt lat="51.5002" lon="-0.1202"><time>2024-05-01T09:00:20+01:00</time><ele>14</ele></trkpt>
                </trkseg>
              </trk>
              <trk><trkseg>
                <trkpt lat="51.5003" lon="-0.1203"><ele>15</ele><time>2024-05-01T07:30:30.5-00:30</time></trkpt>
              </trkseg></trk>
              <rte>
                <rtept lat="51.5004" lon="-0.1204"><ele>16</ele><time>2024-05-01T08:00:40Z</time></rtept>
              </rte>
            </gpx>
            """
        let route = try Route.parse(gpx: text, file: "walk.gpx")
        #expect(route.name == "Morning walk")
        #expect(route.points.map(\.latitude) == [51.5, 51.5001, 51.5002, 51.5003, 51.5004])
        #expect(route.points.map(\.altitude) == [12.5, 13, 14, 15, 16])
        #expect(
            route.points.map(\.time)
                == [
                    millis("2024-05-01T08:00:00.000Z"), millis("2024-05-01T08:00:10.123Z"),
                    millis("2024-05-01T08:00:20.000Z"), millis("2024-05-01T08:00:30.500Z"),
                    millis("2024-05-01T08:00:40.000Z"),
                ])
    }

    @Test("a file without a name is named after the file, and namespace prefixes are ignored")
    func prefixedAndUnnamed() throws {
        let text = """
            <g:gpx xmlns:g="http://www.topografix.com/GPX/1/1"><g:trk><g:trkseg>
            <g:trkpt lat="1" lon="2"/><g:trkpt lat="1.001" lon="2"/>
            </g:trkseg></g:trk></g:gpx>
            """
        let route = try Route.parse(gpx: text, file: "tracks/lunch.gpx")
        #expect(route.name == "lunch")
        #expect(route.points.count == 2)
        #expect(!route.hasTimes)
    }

    @Test("an attribute or element that is not a number names its line")
    func badNumber() {
        let latitude = error(
            document([
                #"<trkpt lat="1" lon="2"></trkpt>"#, #"<trkpt lat="abc" lon="2"></trkpt>"#,
            ]))
        #expect(latitude?.hasPrefix("walk.gpx:4:") == true)
        #expect(
            latitude?.hasSuffix(": error: \"abc\" is not a number; expected a latitude in degrees")
                == true)
        let elevation = error(
            document([
                #"<trkpt lat="1" lon="2"><ele>1</ele></trkpt>"#,
                #"<trkpt lat="1" lon="2">"#, "<ele>high</ele></trkpt>",
            ]))
        #expect(elevation?.hasPrefix("walk.gpx:5:") == true)
        #expect(
            elevation?.hasSuffix(
                ": error: \"high\" is not a number; expected an elevation in metres") == true)
        let missing = error(document([#"<trkpt lon="2"></trkpt>"#]))
        #expect(missing?.hasPrefix("walk.gpx:3:") == true)
        #expect(
            missing?.hasSuffix(
                ": error: <trkpt> has no lat attribute; expected lat and lon attributes in degrees")
                == true)
    }

    @Test("a latitude out of range names the point's line")
    func outOfRange() {
        let text = error(
            document([
                #"<trkpt lat="1" lon="2"></trkpt>"#, #"<trkpt lat="1" lon="2"></trkpt>"#,
                #"<trkpt lat="-91" lon="2"></trkpt>"#,
            ]))
        #expect(text?.hasPrefix("walk.gpx:5:") == true)
        #expect(
            text?.hasSuffix(
                ": error: latitude -91.0 is out of range; expected a latitude within -90...90 degrees"
            ) == true)
    }

    @Test("a single point is too few and names that point's line")
    func tooFewPoints() {
        let text = error(document([#"<trkpt lat="1" lon="2"></trkpt>"#]))
        #expect(text?.hasPrefix("walk.gpx:3:") == true)
        #expect(
            text?.hasSuffix(": error: the route has only 1 point; expected at least 2 points")
                == true)
        let none = error("<gpx>\n<trk/>\n</gpx>")
        #expect(none == "walk.gpx:3: error: the route has no points; expected at least 2 points")
    }

    @Test("a time earlier than the one before names the line of that time")
    func decreasingTimes() {
        let text = error(
            document([
                #"<trkpt lat="1" lon="2"><time>2024-05-01T08:00:00Z</time></trkpt>"#,
                #"<trkpt lat="1" lon="2">"#,
                "  <time>2024-05-01T07:59:59.999Z</time></trkpt>",
            ]))
        #expect(text?.hasPrefix("walk.gpx:5:") == true)
        #expect(
            text?.hasSuffix(
                ": error: time 2024-05-01T07:59:59.999Z is before the previous point's 2024-05-01T08:00:00.000Z; "
                    + "expected times that never go backwards"
            ) == true)
    }

    @Test("a time missing on one point names that point's line")
    func partialTimes() {
        let text = error(
            document([
                #"<trkpt lat="1" lon="2"><time>2024-05-01T08:00:00Z</time></trkpt>"#,
                #"<trkpt lat="1" lon="2"></trkpt>"#,
            ]))
        #expect(text?.hasPrefix("walk.gpx:4:") == true)
        #expect(
            text?.hasSuffix(
                ": error: point 2 has no time but point 1 has one; expected a time on every point or on none"
            ) == true)
        let zoneless = error(
            document([#"<trkpt lat="1" lon="2"><time>2024-05-01T08:00:00</time></trkpt>"#]))
        #expect(zoneless?.hasPrefix("walk.gpx:3:") == true)
        #expect(zoneless?.contains("\"2024-05-01T08:00:00\" is not a time") == true)
    }

    @Test("malformed XML names the line and column where the parser stopped")
    func malformed() {
        #expect(
            error("<gpx>\n<trk><trkseg>\n  <trkpt lat=\"1\" lon=\"2\">\n</trkseg></trk></gpx>")
                == "walk.gpx:4:10: error: malformed XML (a closing tag that does not match the open element); "
                + "expected a well-formed GPX document"
        )
        #expect(
            error("<gpx>\n<trk lat=1>\n</trk></gpx>")
                == "walk.gpx:2:10: error: malformed XML (an attribute value without quotes); "
                + "expected a well-formed GPX document"
        )
        let kml = error("<kml>\n</kml>")
        #expect(kml?.hasPrefix("walk.gpx:1:") == true)
        #expect(
            kml?.hasSuffix(": error: the root element is <kml>; expected a <gpx> document") == true)
        #expect(
            error("")
                == "walk.gpx:1: error: the file has no XML elements; expected a <gpx> document")
    }
}
