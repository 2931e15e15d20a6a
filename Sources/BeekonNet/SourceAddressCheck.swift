import Foundation

/// Whether connections can leave from a list of local IPv4 addresses: each can be bound (it is
/// this machine's) and, for each server, has a route to it (a loopback address reaches only this
/// machine). Checked with UDP sockets, whose `connect` only looks the route up: nothing is sent.
public enum SourceAddressCheck {
    /// Why the first address that cannot be used cannot be; nil when every one can. `servers`
    /// are `(host, port)`; a host that does not resolve is not checked (its devices will hear
    /// `dns`, as without source addresses), one with no IPv4 address is a problem.
    public static func problem(addresses: [String], servers: [(host: String, port: Int)]) -> String? {
        var destinations: [(name: String, address: sockaddr_in)] = []
        for server in servers {
            switch resolve(server.host, port: server.port) {
            case .some(.some(let address)): destinations.append(("\(server.host):\(server.port)", address))
            case .some(.none):
                return "the server \(server.host) has no IPv4 address, and source addresses are IPv4"
            case .none: continue
            }
        }
        for text in addresses {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            guard inet_pton(AF_INET, text, &local.sin_addr) == 1 else { return "\(text) is not an IPv4 address" }
            let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard descriptor >= 0 else { return "no socket to check \(text) with: \(String(cString: strerror(errno)))" }
            defer { close(descriptor) }
            if bindAddress(descriptor, local) != 0 {
                return "\(text) cannot be bound (\(String(cString: strerror(errno)))): it is not an address of "
                    + "this machine's interfaces (on Linux all of 127.0.0.0/8 is)"
            }
            for destination in destinations where connectAddress(descriptor, destination.address) != 0 {
                return "no route from \(text) to \(destination.name) (\(String(cString: strerror(errno)))): "
                    + "a loopback address reaches only this machine"
            }
        }
        return nil
    }

    /// The first IPv4 address of `host`; `.some(nil)` when it resolves to no IPv4 address, nil
    /// when it does not resolve.
    private static func resolve(_ host: String, port: Int) -> sockaddr_in?? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if current.pointee.ai_family == AF_INET, let address = current.pointee.ai_addr {
                return .some(address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee })
            }
            entry = current.pointee.ai_next
        }
        return .some(nil)
    }

    private static func bindAddress(_ descriptor: Int32, _ address: sockaddr_in) -> Int32 {
        var address = address
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    private static func connectAddress(_ descriptor: Int32, _ address: sockaddr_in) -> Int32 {
        var address = address
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }
}
