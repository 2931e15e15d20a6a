/// Reading routes from CSV: a header row naming the columns, then one point per row.
extension Route {
    /// The route in CSV `text`, naming `file` in errors; see `parse(csv:[UInt8],file:)`.
    public static func parse(csv text: String, file: String) throws(RouteError) -> Route {
        try parse(csv: Array(text.utf8), file: file)
    }

    /// The route in CSV `bytes` (UTF-8), naming `file` in errors.
    ///
    /// The header must name `lat` (or `latitude`) and `lon` (or `lng`, `long`, `longitude`);
    /// `time` (ISO-8601 or epoch seconds/ms), `speed`, `accuracy`, `altitude` (or `ele`),
    /// `bearing` are optional, case does not matter, and other columns are ignored. Fields may
    /// be quoted with `"` (doubled inside); blank lines are skipped; an empty optional cell means
    /// the value is absent. The route is named after the file.
    public static func parse(csv bytes: [UInt8], file: String) throws(RouteError) -> Route {
        var reader = RouteCSVReader(bytes: bytes, file: file)
        var draft = RouteDraft(file: file)
        guard let header = try reader.nextRecord() else {
            throw RouteError(
                file: file, line: 1, column: nil, problem: "the file is empty",
                expected: "a header row naming lat and lon columns")
        }
        let columns = try RouteCSVColumns(header: header, file: file)
        while let record = try reader.nextRecord() {
            try draft.appendCSV(record, columns: columns)
        }
        draft.end = reader.position
        return try draft.finish()
    }
}

extension RouteDraft {
    /// Adds the point in CSV `record`, or throws at the first cell that is not what it should be.
    fileprivate mutating func appendCSV(
        _ record: [RouteCSVCell], columns: RouteCSVColumns
    ) throws(RouteError) {
        let rowStart = record[0].position
        func cell(_ index: Int?) -> RouteCSVCell? {
            guard let index, index < record.count,
                !record[index].text.trimmingSpaces.isEmpty
            else { return nil }
            return record[index]
        }
        func required(
            _ index: Int, _ what: String
        ) throws(RouteError) -> (Double, RouteSourcePosition) {
            guard let found = cell(index) else {
                let position = index < record.count ? record[index].position : rowStart
                throw RouteError(
                    file: file, at: position, problem: "missing \(what)",
                    expected: "\(what) in degrees")
            }
            let value = try RouteDraft.number(
                found.text, file: file, at: found.position, expected: "\(what) in degrees")
            return (value, found.position)
        }
        func optional(_ index: Int?, _ expected: String) throws(RouteError) -> Double? {
            guard let found = cell(index) else { return nil }
            return try RouteDraft.number(
                found.text, file: file, at: found.position, expected: expected)
        }
        let (latitude, latitudeAt) = try required(columns.latitude, "a latitude")
        let (longitude, longitudeAt) = try required(columns.longitude, "a longitude")
        var time: Int64? = nil
        let timeCell = cell(columns.time)
        if let timeCell {
            time = try RouteDraft.time(timeCell.text, file: file, at: timeCell.position)
        }
        let point = RoutePoint(
            latitude: latitude, longitude: longitude, time: time,
            altitude: try optional(columns.altitude, "an altitude in metres"),
            speed: try optional(columns.speed, "a speed in metres per second"),
            accuracy: try optional(columns.accuracy, "an accuracy in metres"),
            bearing: try optional(columns.bearing, "a bearing in degrees"))
        append(
            point,
            origin: Origin(
                point: rowStart, latitude: latitudeAt, longitude: longitudeAt,
                time: timeCell?.position))
    }
}
