import BeekonDevice
import Foundation

/// Where a phone is along its route at any moment: at the route's own times, or at a speed
/// with periodic stops; looping or stopping at the end; starting part-way along.
///
/// Pure: a function of elapsed milliseconds since the device set off.
public struct RouteMotion: Sendable {
    /// How the route is travelled.
    public enum Timing: Sendable, Hashable {
        /// Replay the route's own times, scaled by a factor (2 = twice as fast).
        case routeTimes(factor: Double)
        /// Travel at this many metres per second, stopping `dwellSeconds` every `dwellEveryMeters`
        /// (0 for no stops).
        case speed(metersPerSecond: Double, dwellEveryMeters: Double, dwellSeconds: Double)
    }

    /// Below this speed (m/s) the phone counts as standing still.
    public static let standingSpeed = 0.2

    public let route: Route
    public let timing: Timing
    /// Whether the route starts over at the end (otherwise the phone stays at the last point).
    public let loops: Bool
    /// Where along the route the phone sets off, as a fraction 0…1 of its length or duration.
    public let startFraction: Double
    /// How the person travels, when the fleet file names it; put on every true position.
    public let travelMode: Pace?

    /// Metres from the first point to each point.
    private let cumulativeMeters: [Double]

    /// A motion; `timing` falls back to a walking speed for a route without times.
    public init(
        route: Route, timing: Timing, loops: Bool = true, startFraction: Double = 0, travelMode: Pace? = nil
    ) {
        self.route = route
        if case .routeTimes = timing, !route.hasTimes {
            self.timing = .speed(metersPerSecond: Pace.walk.metersPerSecond, dwellEveryMeters: 0, dwellSeconds: 0)
        } else {
            self.timing = timing
        }
        self.loops = loops
        self.startFraction = min(max(startFraction, 0), 1)
        self.travelMode = travelMode
        var cumulative = [0.0]
        for index in route.points.indices.dropFirst() {
            let from = route.points[index - 1]
            let to = route.points[index]
            cumulative.append(
                cumulative[index - 1]
                    + Geodesy.distanceMeters(
                        fromLatitude: from.latitude, longitude: from.longitude,
                        toLatitude: to.latitude, longitude: to.longitude))
        }
        cumulativeMeters = cumulative
    }

    /// The route's length in metres.
    public var lengthMeters: Double { cumulativeMeters.last ?? 0 }

    /// The true position `elapsedMillis` after setting off.
    public func position(afterMillis elapsedMillis: Int64) -> TruePosition {
        let elapsed = Double(max(0, elapsedMillis)) / 1000
        var position: TruePosition
        switch timing {
        case .routeTimes(let factor):
            position = positionByRouteTime(elapsedSeconds: elapsed * max(factor, 0))
        case .speed(let speed, let every, let dwell):
            position = positionBySpeed(elapsedSeconds: elapsed, speed: max(speed, 0), every: every, dwell: dwell)
        }
        position.travelMode = travelMode
        return position
    }

    private func positionBySpeed(elapsedSeconds: Double, speed: Double, every: Double, dwell: Double) -> TruePosition {
        let length = lengthMeters
        guard length > 0, speed > 0 else { return standing(at: 0) }
        var travelled = elapsedSeconds * speed
        var stopped = false
        if every > 0, dwell > 0 {
            // Each cycle is `every` metres of moving, then `dwell` seconds of standing.
            let cycleSeconds = every / speed + dwell
            let cycles = (elapsedSeconds / cycleSeconds).rounded(.down)
            let intoCycle = elapsedSeconds - cycles * cycleSeconds
            stopped = intoCycle >= every / speed
            travelled = cycles * every + min(intoCycle * speed, every)
        }
        var distance = startFraction * length + travelled
        if loops {
            distance = distance.truncatingRemainder(dividingBy: length)
        } else if distance >= length {
            return standing(at: length)
        }
        var position = point(atMeters: distance)
        position.speed = stopped ? 0 : speed
        return position
    }

    private func positionByRouteTime(elapsedSeconds: Double) -> TruePosition {
        let points = route.points
        guard let first = points.first?.time, let last = points.last?.time, last > first else {
            return standing(at: 0)
        }
        let duration = Double(last - first)
        var offset = startFraction * duration + elapsedSeconds * 1000
        if loops {
            offset = offset.truncatingRemainder(dividingBy: duration)
        } else if offset >= duration {
            return standing(at: lengthMeters)
        }
        let instant = Double(first) + offset
        // The last point at or before the instant.
        var low = 0
        var high = points.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if Double(points[middle].time!) <= instant { low = middle } else { high = middle - 1 }
        }
        let next = min(low + 1, points.count - 1)
        let from = points[low]
        let to = points[next]
        let span = Double(to.time! - from.time!)
        let fraction = span > 0 ? (instant - Double(from.time!)) / span : 0
        let segmentMeters = cumulativeMeters[next] - cumulativeMeters[low]
        var position = point(atMeters: cumulativeMeters[low] + segmentMeters * fraction)
        position.speed = span > 0 ? segmentMeters / (span / 1000) : 0
        if position.speed < Self.standingSpeed { position.speed = 0 }
        return position
    }

    private func standing(at meters: Double) -> TruePosition {
        var position = point(atMeters: meters)
        position.speed = 0
        return position
    }

    /// The point `meters` along the route, with the bearing of its leg and interpolated
    /// altitude.
    private func point(atMeters meters: Double) -> TruePosition {
        let points = route.points
        guard points.count > 1 else {
            let only = points.first
            return TruePosition(
                latitude: only?.latitude ?? 0, longitude: only?.longitude ?? 0, speed: 0, bearing: 0,
                altitude: only?.altitude)
        }
        var low = 0
        var high = points.count - 2
        while low < high {
            let middle = (low + high + 1) / 2
            if cumulativeMeters[middle] <= meters { low = middle } else { high = middle - 1 }
        }
        let from = points[low]
        let to = points[low + 1]
        let legMeters = cumulativeMeters[low + 1] - cumulativeMeters[low]
        let fraction = legMeters > 0 ? min(max((meters - cumulativeMeters[low]) / legMeters, 0), 1) : 0
        let altitude: Double?
        if let a = from.altitude, let b = to.altitude {
            altitude = a + (b - a) * fraction
        } else {
            altitude = from.altitude ?? to.altitude
        }
        return TruePosition(
            latitude: from.latitude + (to.latitude - from.latitude) * fraction,
            longitude: from.longitude + (to.longitude - from.longitude) * fraction,
            speed: 0, bearing: Self.bearing(from: from, to: to), altitude: altitude)
    }

    /// The initial great-circle bearing from one point to the next, degrees in [0, 360).
    static func bearing(from: RoutePoint, to: RoutePoint) -> Double {
        let phi1 = from.latitude * .pi / 180
        let phi2 = to.latitude * .pi / 180
        let deltaLambda = (to.longitude - from.longitude) * .pi / 180
        let y = sin(deltaLambda) * cos(phi2)
        let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(deltaLambda)
        let degrees = atan2(y, x) * 180 / .pi
        let wrapped = degrees < 0 ? degrees + 360 : degrees
        return wrapped >= 360 ? 0 : wrapped
    }
}
