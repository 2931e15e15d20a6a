import BeekonDevice
import Foundation

/// A path an emulated device walks: points in order, optionally timed, read from a route file.
///
/// Routes come from GPX, GeoJSON or CSV files; every reader applies the same validation, so a
/// `Route` obtained from `load` or `parse` has at least two points, coordinates in range, and
/// times either on every point (non-decreasing) or on none.
public struct Route: Sendable, Hashable {
    /// The route's own name from the file when it has one, else the file name without extension.
    public var name: String
    /// The points in the order the device visits them.
    public var points: [RoutePoint]

    /// A route from points already in hand; not validated (use `load` or `parse` for files).
    public init(name: String, points: [RoutePoint]) {
        self.name = name
        self.points = points
    }

    /// A route path from a fleet file, relative to the file's folder unless absolute.
    package static func resolvedPath(_ path: String, folder: String) -> String {
        path.hasPrefix("/") ? path : URL(fileURLWithPath: folder).appendingPathComponent(path).path
    }

    /// Total length in metres along the points, by great-circle (haversine) legs.
    public var lengthMeters: Double {
        var total = 0.0
        for index in points.indices.dropFirst() {
            let from = points[index - 1]
            let to = points[index]
            total += Geodesy.distanceMeters(
                fromLatitude: from.latitude, longitude: from.longitude, toLatitude: to.latitude,
                longitude: to.longitude)
        }
        return total
    }

    /// Whether the points carry times (validated routes have times on all points or none).
    public var hasTimes: Bool {
        !points.isEmpty && points.allSatisfy { $0.time != nil }
    }

    /// Milliseconds from the first point's time to the last's; nil for an untimed route.
    public var durationMillis: Int64? {
        guard hasTimes, let first = points.first?.time, let last = points.last?.time else {
            return nil
        }
        return last - first
    }

    /// Reads the route file at `path`, choosing the format by extension.
    ///
    /// `.gpx` is GPX 1.1, `.geojson` and `.json` are GeoJSON, `.csv` is CSV with a header row.
    /// Errors name `path` as given, so they read like compiler diagnostics.
    public static func load(path: String) throws(RouteError) -> Route {
        let format = try RouteFormat(path: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw RouteError(
                file: path, problem: RouteError.noSuchFile, expected: "a readable route file")
        }
        guard !isDirectory.boolValue else {
            throw RouteError(
                file: path, problem: "is a directory", expected: "a readable route file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RouteError(
                file: path, problem: "cannot be read", expected: "a readable route file")
        }
        let bytes = [UInt8](data)
        switch format {
        case .gpx: return try parse(gpx: bytes, file: path)
        case .geoJSON: return try parse(geoJSON: bytes, file: path)
        case .csv: return try parse(csv: bytes, file: path)
        }
    }

    /// The file name of `file` without directories or extension: the fallback route name.
    static func defaultName(file: String) -> String {
        let base =
            file.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init)
            ?? file
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return base }
        return String(base[..<dot])
    }
}
