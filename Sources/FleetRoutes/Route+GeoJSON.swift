/// Reading routes from GeoJSON: every line geometry in the document, joined in order.
extension Route {
    /// The route in GeoJSON `text`, naming `file` in errors; see `parse(geoJSON:[UInt8],file:)`.
    public static func parse(geoJSON text: String, file: String) throws(RouteError) -> Route {
        try parse(geoJSON: Array(text.utf8), file: file)
    }

    /// The route in GeoJSON `bytes`, naming `file` in errors.
    ///
    /// Accepts a LineString, MultiLineString, GeometryCollection, Feature or FeatureCollection;
    /// every LineString (and each line of a MultiLineString) is taken in document order.
    /// Point, MultiPoint and polygon geometries are ignored, since files often mark a start or a
    /// stop with a Point next to the track; a document with no line at all is an error.
    /// Coordinates are `[lon, lat]` or `[lon, lat, ele]`. A Feature's `properties.coordTimes`
    /// (or `properties.times`) gives one time per coordinate, flat or one array per line, as
    /// ISO-8601 strings or epoch numbers (seconds below 1e11, else milliseconds). The route takes
    /// the first line Feature's `properties.name`, else the file name.
    public static func parse(geoJSON bytes: [UInt8], file: String) throws(RouteError) -> Route {
        let root = try RouteJSON.parse(bytes, file: file)
        var reader = RouteGeoJSONReader(file: file)
        try reader.read(root)
        guard reader.lineCount > 0 else {
            throw RouteError(
                file: file, at: root.position,
                problem: "the document has no LineString or MultiLineString",
                expected: "at least one line geometry (Points are ignored)")
        }
        return try reader.draft.finish()
    }
}

/// Walks a parsed GeoJSON document and collects the points of its lines.
struct RouteGeoJSONReader {
    package let file: String
    var draft: RouteDraft
    private(set) var lineCount = 0

    package init(file: String) {
        self.file = file
        draft = RouteDraft(file: file)
    }

    /// Reads any GeoJSON object: a feature collection, a feature or a geometry.
    package mutating func read(_ object: RouteJSON) throws(RouteError) {
        switch try type(of: object) {
        case "FeatureCollection":
            guard let features = object["features"], let items = features.array else {
                throw RouteError(
                    file: file, at: object.position,
                    problem: "the FeatureCollection has no \"features\" array",
                    expected: "\"features\": [ … ]")
            }
            for feature in items { try read(feature) }
        case "Feature":
            try readFeature(object)
        default:
            try readGeometry(object, times: nil)
        }
    }

    private mutating func readFeature(_ feature: RouteJSON) throws(RouteError) {
        let properties = feature["properties"]
        guard let geometry = feature["geometry"], !isNull(geometry) else { return }
        let times = properties?["coordTimes"] ?? properties?["times"]
        let linesBefore = lineCount
        try readGeometry(geometry, times: times.flatMap { isNull($0) ? nil : $0 })
        // Only a feature that adds to the path names it; a "start" marker Point should not.
        if draft.name == nil, lineCount > linesBefore,
            let name = properties?["name"]?.string, !name.isEmpty
        {
            draft.name = name
        }
    }

    private mutating func readGeometry(_ geometry: RouteJSON, times: RouteJSON?) throws(RouteError) {
        let lines: [RouteJSON]
        switch try type(of: geometry) {
        case "LineString":
            lines = [try coordinates(of: geometry)]
        case "MultiLineString":
            let all = try coordinates(of: geometry)
            lines = all.array ?? []
            for line in lines where line.array == nil {
                throw RouteError(
                    file: file, at: line.position, problem: "\(line.kind) is not a line",
                    expected: "an array of [lon, lat] positions")
            }
        case "GeometryCollection":
            guard let geometries = geometry["geometries"]?.array else {
                throw RouteError(
                    file: file, at: geometry.position,
                    problem: "the GeometryCollection has no \"geometries\" array",
                    expected: "\"geometries\": [ … ]")
            }
            // Times belong to one line geometry; a collection's members have none of their own.
            for member in geometries { try readGeometry(member, times: nil) }
            return
        case "Point", "MultiPoint", "Polygon", "MultiPolygon":
            return
        case let other:
            throw RouteError(
                file: file, at: geometry["type"]?.position ?? geometry.position,
                problem: "unknown GeoJSON type \"\(other)\"",
                expected: "LineString, MultiLineString, Feature or FeatureCollection")
        }
        let positions = lines.flatMap { $0.array ?? [] }
        let timeValues = try flatTimes(times, count: positions.count)
        for (index, position) in positions.enumerated() {
            try appendPosition(position, time: timeValues?[index])
        }
        lineCount += lines.count
    }

    private func coordinates(of geometry: RouteJSON) throws(RouteError) -> RouteJSON {
        guard let coordinates = geometry["coordinates"], coordinates.array != nil else {
            throw RouteError(
                file: file, at: geometry["coordinates"]?.position ?? geometry.position,
                problem: "the geometry has no \"coordinates\" array",
                expected: "\"coordinates\": [[lon, lat], …]")
        }
        return coordinates
    }

    /// The times as one flat list matching the coordinates, or nil when the feature has none.
    private func flatTimes(_ times: RouteJSON?, count: Int) throws(RouteError) -> [RouteJSON]? {
        guard let times else { return nil }
        guard let items = times.array else {
            throw RouteError(
                file: file, at: times.position, problem: "the times are \(times.kind)",
                expected: "an array with one time per coordinate")
        }
        // A MultiLineString's times may come as one array per line (as togeojson writes them).
        let flat = items.flatMap { $0.array ?? [$0] }
        guard flat.count == count else {
            throw RouteError(
                file: file, at: times.position,
                problem: "there are \(flat.count) times for \(count) coordinates",
                expected: "one time per coordinate")
        }
        return flat
    }

    private mutating func appendPosition(_ position: RouteJSON, time: RouteJSON?) throws(RouteError) {
        guard let values = position.array, values.count >= 2 else {
            throw RouteError(
                file: file, at: position.position, problem: "\(position.kind) is not a position",
                expected: "[lon, lat] or [lon, lat, ele]")
        }
        let longitude = try number(values[0], expected: "a longitude in degrees")
        let latitude = try number(values[1], expected: "a latitude in degrees")
        let altitude =
            values.count > 2 ? try number(values[2], expected: "an elevation in metres") : nil
        var millis: Int64? = nil
        if let time {
            millis = try self.time(time)
        }
        draft.append(
            RoutePoint(latitude: latitude, longitude: longitude, time: millis, altitude: altitude),
            origin: RouteDraft.Origin(
                point: position.position, latitude: values[1].position,
                longitude: values[0].position, time: time?.position))
    }

    private func number(_ value: RouteJSON, expected: String) throws(RouteError) -> Double {
        if let number = value.number { return number }
        if let text = value.string {
            throw RouteError.notANumber(text, file: file, at: value.position, expected: expected)
        }
        throw RouteError(
            file: file, at: value.position, problem: "\(value.kind) is not a number",
            expected: expected)
    }

    private func time(_ value: RouteJSON) throws(RouteError) -> Int64? {
        if isNull(value) { return nil }
        if let text = value.string {
            return try RouteDraft.time(text, file: file, at: value.position)
        }
        if let number = value.number, let millis = RouteTime.unixMillis(epoch: number) {
            return millis
        }
        throw RouteError(
            file: file, at: value.position, problem: "\(value.kind) is not a time",
            expected: RouteTime.expected)
    }

    private func type(of object: RouteJSON) throws(RouteError) -> String {
        guard case .object = object.value else {
            throw RouteError(
                file: file, at: object.position, problem: "\(object.kind) is not a GeoJSON object",
                expected: "an object with a \"type\"")
        }
        guard let type = object["type"]?.string else {
            throw RouteError(
                file: file, at: object.position, problem: "the object has no \"type\" string",
                expected: "a GeoJSON \"type\" such as \"LineString\" or \"Feature\"")
        }
        return type
    }

    private func isNull(_ value: RouteJSON) -> Bool {
        if case .null = value.value { return true }
        return false
    }
}
