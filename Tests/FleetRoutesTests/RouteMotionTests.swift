import BeekonDevice
import Testing

@testable import FleetRoutes

@Suite("Route motion")
struct RouteMotionTests {
    static let metersPerDegree = Geodesy.earthRadiusMeters * .pi / 180

    /// A straight 1,000 m route due north, with optional times.
    static func northRoute(times: [Int64]? = nil) -> Route {
        let points = (0...10).map { index in
            RoutePoint(
                latitude: 50 + Double(index) * 100 / metersPerDegree, longitude: 8,
                time: times?[index], altitude: Double(index))
        }
        return Route(name: "north", points: points)
    }

    static func metersNorth(_ position: TruePosition) -> Double {
        (position.latitude - 50) * metersPerDegree
    }

    @Test("at a speed, distance covered grows with time, and the bearing is the route's")
    func speed() {
        let motion = RouteMotion(
            route: Self.northRoute(), timing: .speed(metersPerSecond: 1.4, dwellEveryMeters: 0, dwellSeconds: 0),
            loops: false)
        #expect(abs(motion.lengthMeters - 1000) < 0.01)
        #expect(abs(Self.metersNorth(motion.position(afterMillis: 100_000)) - 140) < 0.01)
        #expect(motion.position(afterMillis: 100_000).speed == 1.4)
        #expect(abs(motion.position(afterMillis: 100_000).bearing) < 0.01)
        #expect(abs(motion.position(afterMillis: 100_000).altitude! - 1.4) < 0.001)
        let end = motion.position(afterMillis: 10_000_000)
        #expect(abs(Self.metersNorth(end) - 1000) < 0.01)
        #expect(end.speed == 0)
    }

    @Test("a looping route starts over; a start fraction sets off part-way")
    func loopAndOffset() {
        let loop = RouteMotion(
            route: Self.northRoute(), timing: .speed(metersPerSecond: 10, dwellEveryMeters: 0, dwellSeconds: 0),
            loops: true, startFraction: 0.5)
        #expect(abs(Self.metersNorth(loop.position(afterMillis: 0)) - 500) < 0.01)
        #expect(abs(Self.metersNorth(loop.position(afterMillis: 60_000)) - 100) < 0.01)
    }

    @Test("a configured dwell stops the phone for its seconds every so many metres")
    func dwell() {
        let motion = RouteMotion(
            route: Self.northRoute(), timing: .speed(metersPerSecond: 2, dwellEveryMeters: 200, dwellSeconds: 60),
            loops: false)
        #expect(abs(Self.metersNorth(motion.position(afterMillis: 100_000)) - 200) < 0.01)
        #expect(motion.position(afterMillis: 120_000).speed == 0)
        #expect(abs(Self.metersNorth(motion.position(afterMillis: 159_000)) - 200) < 0.01)
        #expect(abs(Self.metersNorth(motion.position(afterMillis: 170_000)) - 220) < 0.01)
        #expect(motion.position(afterMillis: 170_000).speed == 2)
    }

    @Test("at the route's own times, with a gap in position as a stop, scaled by a factor")
    func routeTimes() {
        // 100 m a minute, but the phone stands at 500 m from minute 5 to minute 15.
        var times: [Int64] = (0...5).map { Int64($0) * 60_000 }
        times += (6...10).map { Int64($0 + 10) * 60_000 }
        var route = Self.northRoute(times: times)
        route.points.insert(RoutePoint(latitude: route.points[5].latitude, longitude: 8, time: 15 * 60_000), at: 6)
        let motion = RouteMotion(route: route, timing: .routeTimes(factor: 1), loops: false)
        #expect(abs(Self.metersNorth(motion.position(afterMillis: 150_000)) - 250) < 0.01)
        #expect(abs(motion.position(afterMillis: 150_000).speed - 100.0 / 60) < 0.001)
        let standing = motion.position(afterMillis: 10 * 60_000)
        #expect(abs(Self.metersNorth(standing) - 500) < 0.01)
        #expect(standing.speed == 0)
        let fast = RouteMotion(route: route, timing: .routeTimes(factor: 2), loops: false)
        #expect(abs(Self.metersNorth(fast.position(afterMillis: 75_000)) - 250) < 0.01)
    }

    @Test("a route without times falls back to walking pace")
    func untimed() {
        let motion = RouteMotion(route: Self.northRoute(), timing: .routeTimes(factor: 1))
        #expect(motion.timing == .speed(metersPerSecond: 1.4, dwellEveryMeters: 0, dwellSeconds: 0))
    }

    @Test("paces: walk 1.4, run 3, cycle 5.5, drive 13 m/s")
    func paces() {
        #expect(Pace.allCases.map(\.metersPerSecond) == [1.4, 3, 5.5, 13])
    }
}
