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

/// One CSV field and where it starts.
struct RouteCSVCell {
    package var text: String
    package var position: RouteSourcePosition
}

/// Which field of a row holds which value, found from the header row.
struct RouteCSVColumns {
    package var latitude: Int
    package var longitude: Int
    package var time: Int?
    package var speed: Int?
    package var accuracy: Int?
    var altitude: Int?
    var bearing: Int?

    package init(header: [RouteCSVCell], file: String) throws(RouteError) {
        func find(_ names: [String]) -> Int? {
            header.firstIndex { names.contains($0.text.trimmingSpaces.lowercased()) }
        }
        let headerLine = header.first?.position.line ?? 1
        guard let latitude = find(["lat", "latitude"]) else {
            throw RouteError(
                file: file, line: headerLine, column: nil,
                problem: "the header has no latitude column",
                expected: "a column named lat or latitude")
        }
        guard let longitude = find(["lon", "lng", "long", "longitude"]) else {
            throw RouteError(
                file: file, line: headerLine, column: nil,
                problem: "the header has no longitude column",
                expected: "a column named lon, lng or longitude")
        }
        self.latitude = latitude
        self.longitude = longitude
        time = find(["time", "timestamp"])
        speed = find(["speed"])
        accuracy = find(["accuracy"])
        altitude = find(["altitude", "ele", "elevation"])
        bearing = find(["bearing", "course"])
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

/// Splits CSV bytes into records of cells, keeping line and column of each cell.
struct RouteCSVReader {
    private let bytes: [UInt8]
    private let file: String
    private var index = 0
    private var cursor = RouteSourceCursor()

    package init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
        // A UTF-8 byte-order mark, as spreadsheet exports write, is not part of the header.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    /// Where the reader is now.
    package var position: RouteSourcePosition { cursor.position }

    /// The next non-blank record, or nil at the end of the input.
    mutating func nextRecord() throws(RouteError) -> [RouteCSVCell]? {
        while index < bytes.count {
            let record = try readRecord()
            let isBlank =
                record.count == 1 && record[0].text.trimmingSpaces.isEmpty
                && !record[0].wasQuoted
            if !isBlank { return record.map { RouteCSVCell(text: $0.text, position: $0.position) } }
        }
        return nil
    }

    private mutating func readRecord() throws(RouteError) -> [(
        text: String, position: RouteSourcePosition, wasQuoted: Bool
    )] {
        var record: [(text: String, position: RouteSourcePosition, wasQuoted: Bool)] = []
        while true {
            var field: [UInt8] = []
            var start = cursor.position
            var wasQuoted = false
            // Spaces before an opening quote are tolerated, as many writers pad after commas.
            var lookahead = index
            while lookahead < bytes.count, bytes[lookahead] == UInt8(ascii: " ") { lookahead += 1 }
            if lookahead < bytes.count, bytes[lookahead] == UInt8(ascii: "\"") {
                while index < lookahead { step() }
                let quoteAt = cursor.position
                step()
                start = cursor.position
                wasQuoted = true
                while true {
                    guard index < bytes.count else {
                        throw RouteError(
                            file: file, at: quoteAt, problem: "a quoted field is never closed",
                            expected: "a closing \" before the end of the file")
                    }
                    let byte = bytes[index]
                    step()
                    if byte == UInt8(ascii: "\"") {
                        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                            field.append(byte)
                            step()
                        } else {
                            break
                        }
                    } else {
                        field.append(byte)
                    }
                }
                // Only spaces may follow a closing quote before the separator.
                while index < bytes.count, bytes[index] == UInt8(ascii: " ") { step() }
                if index < bytes.count, !isSeparatorOrEnd(bytes[index]) {
                    throw RouteError(
                        file: file, at: cursor.position,
                        problem: "unexpected text after a quoted field",
                        expected: "a comma or the end of the line")
                }
            } else {
                while index < bytes.count, !isSeparatorOrEnd(bytes[index]) {
                    field.append(bytes[index])
                    step()
                }
            }
            record.append(
                (String(decoding: field, as: UTF8.self), start, wasQuoted))
            guard index < bytes.count else { return record }
            let separator = bytes[index]
            step()
            if separator == UInt8(ascii: ",") { continue }
            if separator == UInt8(ascii: "\r"), index < bytes.count,
                bytes[index] == UInt8(ascii: "\n")
            {
                step()
            }
            return record
        }
    }

    private func isSeparatorOrEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }

    private mutating func step() {
        cursor.advance(over: bytes[index])
        index += 1
    }
}
