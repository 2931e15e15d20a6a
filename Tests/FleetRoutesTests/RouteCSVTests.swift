import Testing

@testable import FleetRoutes

@Suite("Route+CSV")
struct RouteCSVTests {
    /// The printed error for parsing `text` as `walk.csv`.
    func error(_ text: String) -> String? {
        routeErrorText { () throws(RouteError) in try Route.parse(csv: text, file: "walk.csv") }
    }

    @Test("a CSV with times, speed, accuracy, altitude and bearing reads every column")
    func happyPath() throws {
        let text = """
            time,lat,lon,speed,accuracy,altitude,bearing
            2024-05-01T08:00:00Z,52.5,13.4,1.5,5,34,90
            "2024-05-01T10:00:10.5+02:00",52.5001,13.4001,,4,,

            1714550430,52.5002,13.4002,1.25,3.5,35.5,91

            """
        let route = try Route.parse(csv: text, file: "rides/walk.csv")
        #expect(route.name == "walk")
        #expect(route.points.count == 3)
        #expect(
            route.points[0]
                == RoutePoint(
                    latitude: 52.5, longitude: 13.4, time: millis("2024-05-01T08:00:00.000Z"),
                    altitude: 34, speed: 1.5, accuracy: 5, bearing: 90))
        #expect(
            route.points[1]
                == RoutePoint(
                    latitude: 52.5001, longitude: 13.4001,
                    time: millis("2024-05-01T08:00:10.500Z"), accuracy: 4))
        #expect(route.points[2].time == millis("2024-05-01T08:00:30.000Z"))
        #expect(route.durationMillis == 30_000)
        #expect(route.lengthMeters > 20 && route.lengthMeters < 30)
    }

    @Test("aliases, CRLF line ends, quoted commas and unknown columns are accepted")
    func aliasesAndQuotes() throws {
        let text =
            "Latitude,note,LNG\r\n48.1,\"corner of A, B\",11.5\r\n48.1001,\"say \"\"hi\"\"\",11.5\r\n"
        let route = try Route.parse(csv: text, file: "a.csv")
        #expect(route.points.map(\.latitude) == [48.1, 48.1001])
        #expect(!route.hasTimes)
    }

    @Test("a cell that is not a number names its line and column")
    func badNumber() {
        #expect(
            error("lat,lon\n52.5,13.4\n52.6,13.5\n\n\n\n\"abc\",13.4\n")
                == "walk.csv:7:2: error: \"abc\" is not a number; expected a latitude in degrees")
        #expect(
            error("lat,lon,speed\n52.5,13.4,1\n52.6,13.5,fast\n")
                == "walk.csv:3:11: error: \"fast\" is not a number; expected a speed in metres per second"
        )
        #expect(
            error("lat,lon\n52.5,13.4\n52.6,\n")
                == "walk.csv:3:6: error: missing a longitude; expected a longitude in degrees")
    }

    @Test("a latitude or longitude out of range names its cell")
    func outOfRange() {
        #expect(
            error("lat,lon\n52.5,13.4\n95.5,13.4\n")
                == "walk.csv:3:1: error: latitude 95.5 is out of range; expected a latitude within -90...90 degrees"
        )
        #expect(
            error("lat,lon\n52.5,13.4\n52.5,-190\n")
                == "walk.csv:3:6: error: longitude -190.0 is out of range; "
                + "expected a longitude within -180...180 degrees"
        )
    }

    @Test("fewer than two points is an error at the last point or the end")
    func tooFewPoints() {
        #expect(
            error("lat,lon\n52.5,13.4\n\n")
                == "walk.csv:2:1: error: the route has only 1 point; expected at least 2 points")
        #expect(
            error("lat,lon\n")
                == "walk.csv:2:1: error: the route has no points; expected at least 2 points")
        #expect(
            error("")
                == "walk.csv:1: error: the file is empty; expected a header row naming lat and lon columns"
        )
    }

    @Test("a time earlier than the one before is an error at that time")
    func decreasingTimes() {
        let text = """
            lat,lon,time
            52.5,13.4,2024-05-01T08:00:00Z
            52.5,13.4,2024-05-01T08:00:10Z
            52.5,13.4,2024-05-01T07:59:00Z
            """
        #expect(
            error(text)
                == "walk.csv:4:11: error: time 2024-05-01T07:59:00.000Z "
                + "is before the previous point's 2024-05-01T08:00:10.000Z; "
                + "expected times that never go backwards"
        )
    }

    @Test("times on some points only is an error at the first point that breaks the pattern")
    func partialTimes() {
        #expect(
            error("lat,lon,time\n52.5,13.4,1714550400\n52.5,13.4,\n")
                == "walk.csv:3:1: error: point 2 has no time but point 1 has one; "
                + "expected a time on every point or on none"
        )
        #expect(
            error("lat,lon,time\n52.5,13.4,\n52.5,13.4,1714550400\n")
                == "walk.csv:3:11: error: point 2 has a time but point 1 has none; "
                + "expected a time on every point or on none"
        )
        #expect(
            error("lat,lon,time\n52.5,13.4,soon\n")
                == "walk.csv:2:11: error: \"soon\" is not a time; expected \(RouteTime.expected)")
    }

    @Test("a header without a latitude or longitude column is an error on the header line")
    func missingColumn() {
        #expect(
            error("\nlatitude,elevation\n1,2\n")
                == "walk.csv:2: error: the header has no longitude column; "
                + "expected a column named lon, lng or longitude"
        )
        #expect(
            error("lon,time\n1,2\n")
                == "walk.csv:1: error: the header has no latitude column; expected a column named lat or latitude"
        )
    }

    @Test("an unclosed quote is an error at the quote")
    func unclosedQuote() {
        #expect(
            error("lat,lon\n52.5,13.4\n52.5,\"13.4\n")
                == "walk.csv:3:6: error: a quoted field is never closed; "
                + "expected a closing \" before the end of the file"
        )
        #expect(
            error("lat,lon\n\"52.5\"x,13.4\n")
                == "walk.csv:2:7: error: unexpected text after a quoted field; expected a comma or the end of the line"
        )
    }

    @Test("nan and infinity are not numbers")
    func notFinite() {
        #expect(
            error("lat,lon\nnan,13.4\n")
                == "walk.csv:2:1: error: \"nan\" is not a number; expected a latitude in degrees")
        #expect(
            error("lat,lon\n1e999,13.4\n")
                == "walk.csv:2:1: error: \"1e999\" is not a finite number; expected a latitude in degrees"
        )
    }
}
