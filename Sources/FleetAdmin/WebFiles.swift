import FleetRuntime
import Foundation
import MicroHTTP

/// Where the page (`web/`) and the OpenAPI file (`docs/openapi.yaml`) are, and how they are
/// served: by name, no listing, no `..`, with their content type.
struct WebFiles: Sendable {
    /// The page's folder; nil when none was found (every page request is then 404).
    let webDirectory: String?
    /// The OpenAPI file; nil when none was found.
    let openAPIPath: String?

    /// `--web DIR` when given, else the shipped `web/` (see `ShippedFiles`: the current folder,
    /// an install's `share/beekon-fleet`, or the package root above the executable). The OpenAPI
    /// file is looked for in `docs/` next to that `web/`, then as a shipped file.
    static func locate(web: String?) -> WebFiles {
        let webDirectory = web ?? ShippedFiles.find("web")
        let beside = webDirectory.map {
            URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("docs/openapi.yaml").path
        }
        let openAPI =
            beside.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
            ?? ShippedFiles.find("docs/openapi.yaml")
        return WebFiles(webDirectory: webDirectory, openAPIPath: openAPI)
    }

    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "json": "application/json", "svg": "image/svg+xml", "png": "image/png",
        "jpg": "image/jpeg", "ico": "image/x-icon", "txt": "text/plain; charset=utf-8", "map": "application/json",
        "yaml": "application/yaml", "woff2": "font/woff2",
    ]

    /// Where the map's Leaflet is: Debian's libjs-leaflet (the Dockerfile and CI install it), or a
    /// shipped `vendor/leaflet`; nil when neither is there.
    static let leafletDirectory: String? =
        ShippedFiles.find("vendor/leaflet")
        ?? (FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js")
            ? "/usr/share/javascript/leaflet" : nil)

    /// The page file at URL path `path` (`/` is `index.html`), or nil for 404. `vendor/leaflet/`
    /// is Leaflet's folder; without Leaflet its script and style are empty, so the page draws its
    /// own grid map with no error.
    func page(_ path: String) -> OutgoingReply? {
        guard let webDirectory else { return nil }
        let name = path == "/" ? "index.html" : String(path.dropFirst())
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.isEmpty, !parts.contains(where: { $0.isEmpty || $0 == ".." || $0.hasPrefix(".") }) else {
            return nil
        }
        let vendor = "vendor/leaflet/"
        if name.hasPrefix(vendor) {
            let inside = String(name.dropFirst(vendor.count))
            if let folder = Self.leafletDirectory {
                return file(URL(fileURLWithPath: folder).appendingPathComponent(inside).path)
            }
            guard ["leaflet.js", "leaflet.css"].contains(inside) else { return nil }
            let type = Self.contentTypes[inside.hasSuffix(".js") ? "js" : "css"]!
            return OutgoingReply(
                status: 200, headerFields: [.contentType: type, .cacheControl: "no-cache"],
                body: Array("/* Leaflet is not installed (apt-get install libjs-leaflet): the grid map shows. */".utf8))
        }
        return file(URL(fileURLWithPath: webDirectory).appendingPathComponent(name).path)
    }

    /// The OpenAPI document: the file with the generated schemas of this binary (see
    /// `AdminSchemas`), or nil for 404.
    func openAPI() -> OutgoingReply? {
        guard var reply = openAPIPath.flatMap({ file($0) }) else { return nil }
        reply.body = Array(AdminSchemas.splice(into: String(decoding: reply.body, as: UTF8.self)).utf8)
        return reply
    }

    private func file(_ path: String) -> OutgoingReply? {
        var directory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &directory), !directory.boolValue,
            let data = FileManager.default.contents(atPath: path)
        else { return nil }
        let type =
            Self.contentTypes[URL(fileURLWithPath: path).pathExtension.lowercased()] ?? "application/octet-stream"
        return OutgoingReply(
            status: 200, headerFields: [.contentType: type, .cacheControl: "no-cache"], body: Array(data))
    }
}
