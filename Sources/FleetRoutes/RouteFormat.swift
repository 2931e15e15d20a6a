/// The route file formats `Route.load` recognises by extension.
enum RouteFormat: Sendable, Hashable {
    case gpx
    case geoJSON
    case csv

    /// The format for `path`'s extension, case-insensitively.
    package init(path: String) throws(RouteError) {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        let ext = base.lastIndex(of: ".").map { base[base.index(after: $0)...].lowercased() } ?? ""
        switch ext {
        case "gpx": self = .gpx
        case "geojson", "json": self = .geoJSON
        case "csv": self = .csv
        default:
            throw RouteError(
                file: path,
                problem: ext.isEmpty ? "has no extension" : "unknown extension \".\(ext)\"",
                expected: "a .gpx, .geojson, .json or .csv route file")
        }
    }
}
