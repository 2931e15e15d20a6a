import Testing

@testable import FleetRoutes

@Suite("Route+GeoJSON")
struct RouteGeoJSONTests {
    /// The printed error for parsing `text` as `drive.geojson`.
    func error(_ text: String) -> String? {
        routeErrorText { () throws(RouteError) in
            try Route.parse(geoJSON: text, file: "drive.geojson")
        }
    }

    @Test("a feature collection joins every line in order with elevation and times")
    func happyPath() throws {
        let text = """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"name": "start"},
               "geometry": {"type": "Point", "coordinates": [2.3, 48.8]}},
              {"type": "Feature",
               "properties": {"name": "Paris loop",
                              "coordTimes": ["2024-05-01T08:00:00Z", "2024-05-01T10:00:13.25+02:00"]},
               "geometry": {"type": "LineString", "coordinates": [[2.3, 48.8, 35], [2.301, 48.801, 36.5]]}},
              {"type": "Feature", "properties": {"times": [[1714550430], [1714550440000, 1714550450]]},
               "geometry": {"type": "MultiLineString",
                            "coordinates": [[[2.302, 48.802]], [[2.303, 48.803], [2.304, 48.804]]]}},
              {"type": "Feature", "properties": null, "geometry": null}
            ]}
            """
        let route = try Route.parse(geoJSON: text, file: "drive.geojson")
        #expect(route.name == "Paris loop")
        #expect(route.points.map(\.longitude) == [2.3, 2.301, 2.302, 2.303, 2.304])
        #expect(route.points.map(\.latitude) == [48.8, 48.801, 48.802, 48.803, 48.804])
        #expect(route.points.map(\.altitude) == [35, 36.5, nil, nil, nil])
        #expect(
            route.points.map(\.time)
                == [
                    millis("2024-05-01T08:00:00.000Z"), millis("2024-05-01T08:00:13.250Z"),
                    millis("2024-05-01T08:00:30.000Z"), millis("2024-05-01T08:00:40.000Z"),
                    millis("2024-05-01T08:00:50.000Z"),
                ])
    }

    @Test("a bare LineString is a route named after the file")
    func bareLineString() throws {
        let route = try Route.parse(
            geoJSON: #"{"type":"LineString","coordinates":[[13.4,52.5],[13.41,52.5]]}"#,
            file: "ride.geojson")
        #expect(route.name == "ride")
        #expect(!route.hasTimes)
        #expect(route.lengthMeters > 600 && route.lengthMeters < 700)
    }

    @Test("a coordinate that is not a number names its line and column")
    func badNumber() {
        #expect(
            error(
                "{\"type\": \"LineString\",\n \"coordinates\": [[2.3, 48.8],\n   [2.3, \"abc\"]]}")
                == "drive.geojson:3:10: error: \"abc\" is not a number; expected a latitude in degrees"
        )
        #expect(
            error("{\"type\": \"LineString\",\n \"coordinates\": [[2.3, 48.8], [true, 48.8]]}")
                == "drive.geojson:2:32: error: true is not a number; expected a longitude in degrees"
        )
    }

    @Test("a latitude out of range names the number's line and column")
    func outOfRange() {
        #expect(
            error("{\"type\": \"LineString\",\n \"coordinates\": [[2.3, 48.8],\n  [2.3, 91]]}")
                == "drive.geojson:3:9: error: latitude 91.0 is out of range; "
                + "expected a latitude within -90...90 degrees"
        )
    }

    @Test("one position is too few points; only Points is no line at all")
    func tooFewPoints() {
        #expect(
            error("{\"type\": \"LineString\",\n \"coordinates\": [\n  [2.3, 48.8]]}")
                == "drive.geojson:3:3: error: the route has only 1 point; expected at least 2 points"
        )
        #expect(
            error("\n{\"type\": \"Point\", \"coordinates\": [2.3, 48.8]}")
                == "drive.geojson:2:1: error: the document has no LineString or MultiLineString; "
                + "expected at least one line geometry (Points are ignored)"
        )
    }

    /// A Feature with two positions and the given `coordTimes` JSON on line 3.
    func feature(times: String) -> String {
        "{\"type\": \"Feature\",\n"
            + " \"geometry\": {\"type\": \"LineString\", \"coordinates\": [[2.3, 48.8], [2.3, 48.9]]},\n"
            + " \"properties\": {\"coordTimes\": \(times)}}"
    }

    @Test("a time earlier than the one before names that time's line and column")
    func decreasingTimes() {
        #expect(
            error(feature(times: #"["2024-05-01T08:00:00Z", "2024-05-01T07:00:00Z"]"#))
                == "drive.geojson:3:56: error: time 2024-05-01T07:00:00.000Z "
                + "is before the previous point's 2024-05-01T08:00:00.000Z; "
                + "expected times that never go backwards"
        )
    }

    @Test("times on some points only, or a count that does not match, is an error")
    func partialTimes() {
        #expect(
            error(feature(times: #"[null, 1714550400]"#))
                == "drive.geojson:3:38: error: point 2 has a time but point 1 has none; "
                + "expected a time on every point or on none"
        )
        #expect(
            error(feature(times: #"[1714550400]"#))
                == "drive.geojson:3:31: error: there are 1 times for 2 coordinates; expected one time per coordinate"
        )
        #expect(
            error(feature(times: #"[1714550400, "later"]"#))
                == "drive.geojson:3:44: error: \"later\" is not a time; expected \(RouteTime.expected)"
        )
    }

    @Test("malformed JSON names the line and column of the first bad character")
    func malformed() {
        #expect(
            error("{\"type\": \"LineString\",\n \"coordinates\": [[2.3, 48.8] [2.3, 48.9]]}")
                == "drive.geojson:2:30: error: unexpected '['; expected ',' or ']'")
        #expect(
            error("{\"type\": \"LineString\",\n \"coordinates\": [[2.3, 48.8],")
                == "drive.geojson:2:30: error: unexpected end of file; expected a JSON value")
        #expect(
            error("{\"type\": \"LineString\"\n \"coordinates\": []}")
                == "drive.geojson:2:2: error: unexpected '\"'; expected ',' or '}'")
        #expect(
            error("{\"type\": \"Polyline\", \"coordinates\": []}")
                == "drive.geojson:1:10: error: unknown GeoJSON type \"Polyline\"; "
                + "expected LineString, MultiLineString, Feature or FeatureCollection"
        )
        #expect(
            error(String(repeating: "[", count: 10_000))
                == "drive.geojson:1:257: error: arrays and objects nest too deeply; expected at most 256 levels"
        )
    }

    @Test(
        """
        route files are read by the one strict JSON parser: what is not JSON is refused at its \
        line and column, a UTF-8 byte order mark is skipped, and the columns count characters
        """,
        arguments: [
            (
                "{\"type\": \"LineString\",\n \"coordinates\": [[02.3, 48.8], [2.3, 48.9]]}",
                "drive.geojson:2:19: error: a number with a leading zero"
            ),
            (
                "{\"type\": \"LineString\", \"name\": \"\\ud800\",\n \"coordinates\": []}",
                "drive.geojson:1:33: error: a lone UTF-16 surrogate \\ud800"
            ),
            (
                "{\"type\": \"LineString\", \"name\": \"Caf\u{e9}\", \"coordinates\": [[2.3, 48.8] 1]}",
                "drive.geojson:1:68: error: unexpected '1'; expected ',' or ']'"
            ),
            (
                "\u{feff}{\"type\": \"LineString\", \"coordinates\": [[2.3, 48.8], [2.3, 48.9]]} x",
                "drive.geojson:1:67: error: data after the value"
            ),
            (
                "{\"type\": \"LineString\", \"coordinates\": [[2.3, 1e400], [2.3, 48.9]]}",
                "drive.geojson:1:46: error: a number is too large; expected a finite number"
            ),
        ])
    func strictJSON(text: String, expected: String) {
        #expect(error(text) == expected)
    }

    @Test("invalid UTF-8 in a string is refused where the string starts")
    func invalidUTF8() {
        let bytes = Array(#"{"type": "LineString", "name": ""#.utf8) + [0xFF] + Array(#"", "coordinates": []}"#.utf8)
        let text = routeErrorText { () throws(RouteError) in try Route.parse(geoJSON: bytes, file: "drive.geojson") }
        #expect(text == "drive.geojson:1:33: error: invalid UTF-8 in a string")
    }
}
