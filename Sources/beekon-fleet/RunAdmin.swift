import FleetAdmin
import FleetCommandLine
import FleetRuntime
import Foundation
import Logging

/// `run --admin ADDR:PORT --admin-token TOKEN --admin-allowed-host NAME`: starts the admin server
/// next to the fleet.
enum RunAdmin {
    /// Starts the admin server on `address` (`HOST:PORT`, port 0 picks one; `off` for none) and
    /// prints its URL; the token comes from `--admin-token`, else `BEEKON_ADMIN_TOKEN`; the
    /// allowed host names from every `--admin-allowed-host` and `BEEKON_ADMIN_ALLOWED_HOSTS`,
    /// each comma-separated. Its answers are logged to `logger` at debug level.
    static func start(
        _ address: String, token: String?, allowedHosts: [String] = [], runtime: FleetRuntime, web: String? = nil,
        logger: Logger
    ) throws -> AdminServer? {
        guard address.lowercased() != "off" else { return nil }
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else {
            throw CommandFailure("--admin \"\(address)\" is not HOST:PORT (e.g. 127.0.0.1:8080, 0.0.0.0:0) or `off`")
        }
        let host = String(address[..<colon])
        let secret = token ?? ProcessInfo.processInfo.environment["BEEKON_ADMIN_TOKEN"]
        let names = (allowedHosts + [ProcessInfo.processInfo.environment["BEEKON_ADMIN_ALLOWED_HOSTS"] ?? ""])
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        do throws(AdminError) {
            let server = try AdminServer(
                runtime: runtime,
                configuration: AdminConfiguration(
                    host: host.isEmpty ? "127.0.0.1" : host, port: port, token: secret, webDirectory: web,
                    allowedHosts: names),
                logger: logger)
            print("admin: \(server.url)")
            return server
        } catch {
            guard error.cannotListen else { throw CommandFailure(error.message) }
            throw CommandFailure(
                error.message + " Give another with --admin 127.0.0.1:PORT (0 picks a free one), or --admin off.")
        }
    }
}
