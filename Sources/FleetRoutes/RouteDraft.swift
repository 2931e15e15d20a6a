import BeekonDevice

/// Points read from a file but not yet checked, each with where it came from.
///
/// Every format reader fills a draft and calls `finish`, so the rules (ranges, point count,
/// times) are written once and every error points into the file.
struct RouteDraft {
    /// Where a point's parts were found, for errors raised after reading.
    struct Origin {
        var point: RouteSourcePosition
        package var latitude: RouteSourcePosition
        package var longitude: RouteSourcePosition
        package var time: RouteSourcePosition?
    }

    package let file: String
    package var name: String?
    private(set) var points: [RoutePoint] = []
    private(set) var origins: [Origin] = []
    /// Where reading stopped; the place to blame when there are too few points.
    package var end: RouteSourcePosition?

    package init(file: String) {
        self.file = file
    }

    package mutating func append(_ point: RoutePoint, origin: Origin) {
        points.append(point)
        origins.append(origin)
    }

    /// The validated route, or the first rule broken, located where it was broken.
    package func finish() throws(RouteError) -> Route {
        for (index, point) in points.enumerated() {
            let origin = origins[index]
            guard (-90...90).contains(point.latitude) else {
                throw RouteError(
                    file: file, at: origin.latitude,
                    problem: "latitude \(point.latitude) is out of range",
                    expected: "a latitude within -90...90 degrees")
            }
            guard (-180...180).contains(point.longitude) else {
                throw RouteError(
                    file: file, at: origin.longitude,
                    problem: "longitude \(point.longitude) is out of range",
                    expected: "a longitude within -180...180 degrees")
            }
        }
        guard points.count >= 2 else {
            throw RouteError(
                file: file, at: origins.last?.point ?? end,
                problem: points.count == 1
                    ? "the route has only 1 point" : "the route has no points",
                expected: "at least 2 points")
        }
        try checkTimes()
        return Route(name: name ?? Route.defaultName(file: file), points: points)
    }

    private func checkTimes() throws(RouteError) {
        let timed = points[0].time != nil
        var previous: Int64? = nil
        for (index, point) in points.enumerated() {
            let origin = origins[index]
            guard let time = point.time else {
                guard !timed else {
                    throw RouteError(
                        file: file, at: origin.point,
                        problem: "point \(index + 1) has no time but point 1 has one",
                        expected: "a time on every point or on none")
                }
                continue
            }
            guard timed else {
                throw RouteError(
                    file: file, at: origin.time ?? origin.point,
                    problem: "point \(index + 1) has a time but point 1 has none",
                    expected: "a time on every point or on none")
            }
            if let previous, time < previous {
                throw RouteError(
                    file: file, at: origin.time ?? origin.point,
                    problem:
                        "time \(Timestamp.text(unixMillis: time)) is before the previous point's "
                        + Timestamp.text(unixMillis: previous),
                    expected: "times that never go backwards")
            }
            previous = time
        }
    }

    /// A finite number from `text` (spaces around it allowed), or an error naming what it was for.
    package static func number(
        _ text: some StringProtocol, file: String, at position: RouteSourcePosition?,
        expected: String
    ) throws(RouteError) -> Double {
        let trimmed = text.trimmingSpaces
        // Only plain decimal notation: `Double` would also take "nan", "inf" and hex, none of
        // which belongs in a route file.
        guard trimmed.allSatisfy({ "0123456789+-.eE".contains($0) }), let value = Double(trimmed)
        else {
            throw RouteError.notANumber(text, file: file, at: position, expected: expected)
        }
        guard value.isFinite else {
            throw RouteError(
                file: file, at: position, problem: "\"\(text)\" is not a finite number",
                expected: expected)
        }
        return value
    }

    /// Unix ms from ISO-8601 text or an epoch number, or an error at `position`.
    package static func time(
        _ text: some StringProtocol, file: String, at position: RouteSourcePosition?
    ) throws(RouteError) -> Int64 {
        guard let millis = RouteTime.unixMillis(parsingText: text.trimmingSpaces) else {
            throw RouteError(
                file: file, at: position, problem: "\"\(text)\" is not a time",
                expected: RouteTime.expected)
        }
        return millis
    }
}

extension StringProtocol {
    /// The text without leading or trailing spaces, tabs and line breaks.
    var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        let string = Substring(self)
        guard let first = string.firstIndex(where: { !isSpace($0) }),
            let last = string.lastIndex(where: { !isSpace($0) })
        else { return string[string.endIndex...] }
        return string[first...last]
    }
}
