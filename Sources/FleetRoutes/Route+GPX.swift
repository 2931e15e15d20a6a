import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reading routes from GPX 1.1 (and 1.0): track points and route points, joined in file order.
extension Route {
    /// The route in GPX `text`, naming `file` in errors; see `parse(gpx:[UInt8],file:)`.
    public static func parse(gpx text: String, file: String) throws(RouteError) -> Route {
        try parse(gpx: Array(text.utf8), file: file)
    }

    /// The route in GPX `bytes`, naming `file` in errors.
    ///
    /// Every `trk/trkseg/trkpt` and `rte/rtept` is taken in document order, so several tracks
    /// and segments become one continuous route. `lat`/`lon` attributes are required; `<ele>`,
    /// `<time>` (ISO-8601 with `Z` or an offset) and GPX 1.0's `<speed>`/`<course>` are read.
    /// Waypoints (`wpt`) are not part of the path and are skipped. The route takes the first
    /// track, route or metadata `<name>`, else the file name.
    public static func parse(gpx bytes: [UInt8], file: String) throws(RouteError) -> Route {
        let parser = XMLParser(data: Data(bytes))
        // External entities could make a route file read other files or the network.
        parser.shouldResolveExternalEntities = false
        let reader = RouteGPXReader(file: file)
        parser.delegate = reader
        let succeeded = parser.parse()
        if let error = reader.error { throw error }
        guard succeeded else {
            throw RouteError(
                file: file, line: max(parser.lineNumber, 1),
                column: parser.columnNumber > 0 ? parser.columnNumber : nil,
                problem: "malformed XML" + RouteGPXReader.describe(parser.parserError),
                expected: "a well-formed GPX document")
        }
        guard reader.sawRoot else {
            throw RouteError(
                file: file, line: 1, column: nil, problem: "the file has no XML elements",
                expected: "a <gpx> document")
        }
        reader.draft.end = RouteSourcePosition(line: max(parser.lineNumber, 1), column: nil)
        return try reader.draft.finish()
    }
}

/// The XMLParser delegate that collects GPX points into a draft.
///
/// XMLParser's callbacks cannot throw, so the first error is kept and parsing aborted; the
/// caller throws it once `parse()` returns.
final class RouteGPXReader: NSObject, XMLParserDelegate {
    private let file: String
    var draft: RouteDraft
    package private(set) var error: RouteError?
    private(set) var sawRoot = false

    /// Local names of the open elements, outermost first.
    private var stack: [String] = []
    /// The point being read, with where it started.
    private var point: RoutePoint?
    private var pointAt = RouteSourcePosition(line: 1, column: nil)
    private var timeAt: RouteSourcePosition?
    /// Text of the leaf element being read (ele, time, name…) and where it started.
    private var text = ""
    private var textAt = RouteSourcePosition(line: 1, column: nil)

    package init(file: String) {
        self.file = file
        draft = RouteDraft(file: file)
    }

    /// A short reason from XMLParser's error, which on its own only carries a code.
    ///
    /// The codes are libxml2's, which both Apple's and swift-corelibs' XMLParser pass through.
    package static func describe(_ error: (any Error)?) -> String {
        guard let error = error as NSError? else { return "" }
        switch error.code {
        case 4: return " (the document is empty)"
        case 5: return " (the document ends early or goes on after the root element)"
        case 26: return " (an undefined entity)"
        case 39, 40: return " (an attribute value without quotes)"
        case 41: return " (an attribute without a value)"
        case 73: return " (a tag without its closing '>')"
        case 76: return " (a closing tag that does not match the open element)"
        case 77: return " (an element that is never closed)"
        default: return " (XMLParser error \(error.code))"
        }
    }

    package func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        // swift-corelibs' XMLParser recovers from errors and may still report success, so the
        // first error is taken here rather than from `parse()`'s result.
        fail(
            parser,
            RouteError(
                file: file, at: position(parser),
                problem: "malformed XML" + Self.describe(parseError),
                expected: "a well-formed GPX document"))
    }

    private func position(_ parser: XMLParser) -> RouteSourcePosition {
        RouteSourcePosition(
            line: max(parser.lineNumber, 1),
            column: parser.columnNumber > 0 ? parser.columnNumber : nil)
    }

    private func fail(_ parser: XMLParser, _ routeError: RouteError) {
        if error == nil { error = routeError }
        parser.abortParsing()
    }

    package func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        guard error == nil else { return }
        // Without namespace processing a prefixed file reports `gpx:trkpt`; the prefix is noise.
        let name = elementName.split(separator: ":").last.map(String.init) ?? elementName
        if stack.isEmpty {
            sawRoot = true
            guard name == "gpx" else {
                fail(
                    parser,
                    RouteError(
                        file: file, at: position(parser),
                        problem: "the root element is <\(elementName)>",
                        expected: "a <gpx> document"))
                return
            }
        }
        let parent = stack.last
        stack.append(name)
        text = ""
        textAt = position(parser)
        guard point == nil else {
            if name == "time" { timeAt = textAt }
            return
        }
        guard (name == "trkpt" && parent == "trkseg") || (name == "rtept" && parent == "rte")
        else { return }
        pointAt = position(parser)
        timeAt = nil
        guard let latitudeText = attributeDict["lat"], let longitudeText = attributeDict["lon"]
        else {
            fail(
                parser,
                RouteError(
                    file: file, at: pointAt,
                    problem:
                        "<\(name)> has no \(attributeDict["lat"] == nil ? "lat" : "lon") attribute",
                    expected: "lat and lon attributes in degrees"))
            return
        }
        do {
            point = RoutePoint(
                latitude: try RouteDraft.number(
                    latitudeText, file: file, at: pointAt, expected: "a latitude in degrees"),
                longitude: try RouteDraft.number(
                    longitudeText, file: file, at: pointAt, expected: "a longitude in degrees"))
        } catch {
            fail(parser, error)
        }
    }

    package func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    package func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?
    ) {
        guard error == nil, let name = stack.popLast() else { return }
        let parent = stack.last
        defer { text = "" }
        if name == "name", draft.name == nil,
            parent == "trk" || parent == "rte" || parent == "metadata"
        {
            let trimmed = text.trimmingSpaces
            if !trimmed.isEmpty { draft.name = String(trimmed) }
            return
        }
        guard var current = point else { return }
        do {
            switch name {
            case "trkpt", "rtept":
                draft.append(
                    current,
                    origin: RouteDraft.Origin(
                        point: pointAt, latitude: pointAt, longitude: pointAt, time: timeAt))
                point = nil
                return
            case "ele" where parent == "trkpt" || parent == "rtept":
                current.altitude = try RouteDraft.number(
                    text, file: file, at: textAt, expected: "an elevation in metres")
            case "time" where parent == "trkpt" || parent == "rtept":
                current.time = try RouteDraft.time(text, file: file, at: textAt)
            case "speed" where parent == "trkpt" || parent == "rtept":
                current.speed = try RouteDraft.number(
                    text, file: file, at: textAt, expected: "a speed in metres per second")
            case "course" where parent == "trkpt" || parent == "rtept":
                current.bearing = try RouteDraft.number(
                    text, file: file, at: textAt, expected: "a course in degrees")
            default:
                return
            }
            point = current
        } catch {
            fail(parser, error)
        }
    }
}
