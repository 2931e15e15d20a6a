import BeekonDevice
import Foundation
import Testing

@testable import FleetRoutes

/// A directory of its own for one test, removed when the test ends.
final class RouteTemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "/route-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` inside the directory and returns the file's path.
    func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The printed error from `body`, or nil when it succeeds.
func routeErrorText(_ body: () throws(RouteError) -> Route) -> String? {
    do {
        _ = try body()
        return nil
    } catch {
        return error.description
    }
}

/// Unix ms for a wire-format UTC time, as the oracle for the route time parser.
func millis(_ text: String) -> Int64 {
    Timestamp.unixMillis(parsing: text) ?? -1
}

/// The folder of route files shipped with the repository.
let shippedRoutesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("fleets/routes").path

@Suite("Route")
struct RouteTests {
    @Test("length sums the haversine legs and duration spans first to last time")
    func lengthAndDuration() {
        let route = Route(
            name: "r",
            points: [
                RoutePoint(latitude: 0, longitude: 0, time: 1_000),
                RoutePoint(latitude: 0, longitude: 0.001, time: 2_000),
                RoutePoint(latitude: 0.001, longitude: 0.001, time: 5_000),
            ])
        let leg = Geodesy.distanceMeters(
            fromLatitude: 0, longitude: 0, toLatitude: 0, longitude: 0.001)
        #expect(abs(route.lengthMeters - 2 * leg) < 0.01)
        #expect(route.hasTimes)
        #expect(route.durationMillis == 4_000)
    }

    @Test("a route without times says so and has no duration")
    func untimed() {
        let route = Route(
            name: "r",
            points: [
                RoutePoint(latitude: 1, longitude: 2), RoutePoint(latitude: 1.001, longitude: 2),
            ])
        #expect(!route.hasTimes)
        #expect(route.durationMillis == nil)
    }

    @Test("load picks the reader by extension and names the route after the file")
    func loadByExtension() throws {
        let directory = try RouteTemporaryDirectory()
        let csv = try directory.write("Morning Ride.CSV", "lat,lon\n1,2\n1.001,2\n")
        let json = try directory.write(
            "line.json", #"{"type":"LineString","coordinates":[[2,1],[2,1.001]]}"#)
        #expect(try Route.load(path: csv).name == "Morning Ride")
        #expect(try Route.load(path: json).points.count == 2)
    }

    @Test("a missing file is an error naming the path")
    func missingFile() throws {
        let directory = try RouteTemporaryDirectory()
        let path = directory.path + "/nope.gpx"
        #expect(
            routeErrorText { () throws(RouteError) in try Route.load(path: path) }
                == "\(path): error: no such file; expected a readable route file")
    }

    @Test("a directory or an unknown extension is an error naming the path")
    func notARouteFile() throws {
        let directory = try RouteTemporaryDirectory()
        let folder = directory.path + "/dir.csv"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let kml = try directory.write("walk.kml", "<kml/>")
        #expect(
            routeErrorText { () throws(RouteError) in try Route.load(path: folder) }
                == "\(folder): error: is a directory; expected a readable route file")
        #expect(
            routeErrorText { () throws(RouteError) in try Route.load(path: kml) }
                == "\(kml): error: unknown extension \".kml\"; expected a .gpx, .geojson, .json or .csv route file"
        )
    }

    @Test("an error prints like a compiler diagnostic")
    func errorFormat() {
        let full = RouteError(
            file: "walk.csv", line: 7, column: 2, problem: "\"abc\" is not a number",
            expected: "a latitude in degrees")
        #expect(
            full.description
                == "walk.csv:7:2: error: \"abc\" is not a number; expected a latitude in degrees")
        let lineOnly = RouteError(file: "a.gpx", line: 3, problem: "bad")
        #expect(lineOnly.description == "a.gpx:3: error: bad")
    }

    @Test(
        "each shipped route parses with a plausible length and speed for its mode",
        arguments: [
            ("london-walk.gpx", 2_000.0...4_000.0, 1.0...1.8),
            ("paris-drive.geojson", 10_000.0...20_000.0, 8.0...16.0),
            ("berlin-bike.csv", 5_000.0...10_000.0, 3.5...7.0),
        ])
    func shippedRoute(
        file: String, length: ClosedRange<Double>, speed: ClosedRange<Double>
    ) throws {
        let route = try Route.load(path: shippedRoutesDirectory + "/" + file)
        #expect(length.contains(route.lengthMeters), "length \(route.lengthMeters)")
        #expect(route.points.count <= 400)
        let duration = try #require(route.durationMillis)
        let metresPerSecond = route.lengthMeters / (Double(duration) / 1000)
        #expect(speed.contains(metresPerSecond), "speed \(metresPerSecond)")
        // No leg may be faster than the mode allows (walkers do not sprint at 3 m/s for long).
        let fastest = speed.upperBound * 2.5
        for (from, to) in zip(route.points, route.points.dropFirst()) {
            let metres = Geodesy.distanceMeters(
                fromLatitude: from.latitude, longitude: from.longitude, toLatitude: to.latitude,
                longitude: to.longitude)
            let seconds = Double((to.time ?? 0) - (from.time ?? 0)) / 1000
            #expect(metres <= fastest * max(seconds, 0.001), "leg of \(metres) m in \(seconds) s")
        }
    }

    @Test("the shipped drive stops at least twice: time runs on while the car stands still")
    func driveStops() throws {
        let route = try Route.load(path: shippedRoutesDirectory + "/paris-drive.geojson")
        var stops = 0
        for (from, to) in zip(route.points, route.points.dropFirst())
        where from.latitude == to.latitude && from.longitude == to.longitude {
            #expect((to.time ?? 0) > (from.time ?? 0))
            stops += 1
        }
        #expect(stops >= 2)
    }

    @Test("random bytes never crash any reader", arguments: 0..<16)
    func fuzz(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        let alphabet = Array(
            "<>/=\"',:.-+0123456789eE[]{}\n\r \\trkptlaonume gpxtypeLineString".utf8)
        let seeds = [
            "lat,lon,time\n1,2,2024-05-01T08:00:00Z\n\"3\",4,5\n",
            #"{"type":"LineString","coordinates":[[2,1],[2,1.001]]}"#,
            "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><ele>3</ele></trkpt></trkseg></trk></gpx>",
        ]
        for text in seeds {
            var bytes = Array(text.utf8)
            for _ in 0..<64 {
                let position = Int(generator.next() % UInt64(bytes.count + 1))
                switch generator.next() % 3 {
                case 0 where position < bytes.count: bytes.remove(at: position)
                case 1 where position < bytes.count:
                    bytes[position] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                default:
                    bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: position)
                }
                _ = try? Route.parse(csv: bytes, file: "f.csv")
                _ = try? Route.parse(geoJSON: bytes, file: "f.geojson")
                _ = try? Route.parse(gpx: bytes, file: "f.gpx")
            }
        }
    }
}
