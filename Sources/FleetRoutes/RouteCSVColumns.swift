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
