import BeekonStore
import FleetDescription
import FleetEngine
import FleetRoutes
import Foundation

/// The files of a run's data folder and its fleet file's routes: the real driver's side of what
/// the engine is given at start (routes, install ids, the clock record) and of the effects that
/// keep them (`devices.json`, `clock.json`).
enum RunFiles {
    /// Every route the fleet file names: those its reader read already, the rest read now; a
    /// `RunError` names the route that fails.
    static func routes(of fleet: FleetFile, folder: String) throws(RunError) -> [String: Route] {
        var routes = fleet.routes
        for group in fleet.groups {
            for path in group.routes where routes[path] == nil {
                do throws(RouteError) {
                    routes[path] = try Route.load(path: Route.resolvedPath(path, folder: folder))
                } catch {
                    throw RunError(description: "\(error)")
                }
            }
        }
        return routes
    }

    /// The routes an admin spawn's spec names that `engine` lacks (none for a group template),
    /// read relative to the fleet file's folder; a `FleetControlError` on `spec.route` names
    /// the one that cannot be used.
    static func routes(for request: SpawnRequest, missingFrom engine: FleetLoop) throws(FleetControlError) -> [String:
        Route]
    {
        guard case .spec(let group) = request.template else { return [:] }
        var routes: [String: Route] = [:]
        for path in group.routes where engine.roster.routes[path] == nil && routes[path] == nil {
            let resolved = Route.resolvedPath(path, folder: engine.options.routeFolder)
            do throws(RouteError) {
                routes[path] = try Route.load(path: resolved)
            } catch  where error.problem == RouteError.noSuchFile {
                // A route file of a known kind that is not there: what the spec names is missing.
                throw FleetControlError(
                    .notFound, "route \"\(path)\" is not there (looked for \(resolved))", field: "spec.route")
            } catch {
                throw FleetControlError(.badRequest, "route \"\(path)\" cannot be used: \(error)", field: "spec.route")
            }
        }
        return routes
    }

    // MARK: devices.json and installs.json

    /// The install ids an earlier run on `directory` made, by device id (none when there is no map).
    static func readInstallIDs(_ directory: String) -> [String: String] {
        readMap([String: String].self, "\(directory)/devices.json") ?? [:]
    }

    /// Returns what went wrong, or nil when the map is written.
    @discardableResult
    static func writeInstallIDs(_ map: [String: String], _ directory: String) -> String? {
        writeMap(map, "devices.json", directory)
    }

    /// The install ids reinstalls replaced in an earlier run on `directory`, by device id, oldest
    /// first (none when there is no file).
    static func readFormerInstalls(_ directory: String) -> [String: [String]] {
        readMap([String: [String]].self, "\(directory)/\(formerInstallsFile)") ?? [:]
    }

    /// Returns what went wrong, or nil when the map is written.
    @discardableResult
    static func writeFormerInstalls(_ map: [String: [String]], _ directory: String) -> String? {
        writeMap(map, formerInstallsFile, directory)
    }

    /// The file of former installs in a data folder.
    static let formerInstallsFile = "installs.json"

    /// A map of install ids from `path`; nil when there is none, or it is not one.
    private static func readMap<Map: Decodable>(_ type: Map.Type, _ path: String) -> Map? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(type, from: data)
    }

    /// Writes a map of install ids as `file` in `directory`, keys sorted. Returns what went
    /// wrong, or nil when it is written.
    private static func writeMap<Map: Encodable>(_ map: Map, _ file: String, _ directory: String) -> String? {
        do {
            try PrivateFile.createFolder(atPath: directory)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            // 0600 (it names devices' stores), and renamed over the old one, so a crash never
            // leaves half a map.
            try PrivateFile.write(try encoder.encode(map), toFile: "\(directory)/\(file)")
            return nil
        } catch {
            return "\(error)"
        }
    }

    // MARK: clock.json

    /// The data folder's clock file: nil when there is none; a `RunError` naming the file when
    /// it cannot be read or is not what a run writes. Refusing beats guessing: without it a
    /// resumed run could stamp uploads earlier than ones the last run already sent.
    static func readClock(_ directory: String) throws(RunError) -> ClockRecord? {
        let path = "\(directory)/\(ClockRecord.fileName)"
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw ClockRecord.problem(path, "cannot be examined (\(String(cString: strerror(errno))))")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = (error as NSError).userInfo[NSUnderlyingErrorKey].map { "\($0)" } ?? error.localizedDescription
            throw ClockRecord.problem(path, "cannot be read (\(reason))")
        }
        return try ClockRecord(json: data, path: path)
    }

    /// Writes `record` to the data folder's `clock.json`; the error's text on failure.
    static func writeClock(_ record: ClockRecord, _ directory: String) -> String? {
        do {
            try PrivateFile.write(record.json, toFile: "\(directory)/\(ClockRecord.fileName)")
            return nil
        } catch {
            return error.localizedDescription
        }
    }
}

extension FleetLoop {
    /// An engine over the fleet file's routes and what an earlier run left in the data folder,
    /// with SQLite stores there: what both drivers start from.
    init(fleet: FleetFile, options: RunOptions) throws(RunError) {
        try self.init(
            fleet: fleet, options: options, routes: try RunFiles.routes(of: fleet, folder: options.routeFolder),
            installIDs: RunFiles.readInstallIDs(options.dataDirectory),
            formerInstalls: RunFiles.readFormerInstalls(options.dataDirectory),
            previousClock: try RunFiles.readClock(options.dataDirectory),
            stores: SQLiteShelf(dataDirectory: options.dataDirectory, maxOpen: options.maxOpenStores))
    }
}
