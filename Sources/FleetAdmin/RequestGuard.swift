import HTTPTypes
import MicroHTTP

/// The checks every admin request passes before it is routed, because loopback is not a
/// security boundary: any page the user's browser opens can send requests to 127.0.0.1.
///
/// - `Host` must name this admin (a loopback literal, `localhost`, the bind host or an allowed
///   name), else 421: a DNS-rebinding page reaches the admin under its own name.
/// - A state-changing request (POST, PUT, PATCH, DELETE) that carries `Origin` must come from
///   the admin's own origin, and none may say `Sec-Fetch-Site: cross-site`/`same-site`, else
///   403: a page on another origin may send, even if it may not read.
/// - A body must be `application/json`, else 415: an HTML form or a CORS-simple `fetch`
///   (`text/plain`) cannot send that type without the browser asking first, and every command
///   needs a body.
///
/// Pure: reads the request's method and headers only.
struct RequestGuard: Sendable {
    /// Host names (lower case, without port) answered besides loopback literals and `localhost`.
    let allowedNames: Set<String>

    /// A guard allowing the bind host and `allowed` (names as `AdminConfiguration` checked them).
    /// A wildcard bind host (`0.0.0.0`, `::`) is not a name: pages reach local servers through
    /// `http://0.0.0.0:PORT/`, so it is not allowed.
    init(bindHost: String, allowed: [String]) {
        var names = Set(allowed.map { $0.lowercased() })
        let bind = Self.bracketed(bindHost.lowercased())
        if !Self.wildcards.contains(bind) { names.insert(bind) }
        allowedNames = names
    }

    private static let wildcards: Set<String> = ["0.0.0.0", "*", "[::]", "[0:0:0:0:0:0:0:0]"]

    private static let stateChanging: Set<String> = ["POST", "PUT", "PATCH", "DELETE"]

    /// Throws the answer for a request that fails a check: 421, 403 or 415.
    func check(_ request: IncomingRequest) throws(APIError) {
        let host = header(.hostField, of: request)
        let name = Self.hostName(host)
        guard let name, allows(name) else {
            let what =
                host.isEmpty
                ? "the request has no Host header" : "Host \"\(host.prefix(100))\" is not a name of this admin"
            let allow =
                name.map { "--admin-allowed-host \($0.prefix(100)) (or BEEKON_ADMIN_ALLOWED_HOSTS)" }
                ?? "--admin-allowed-host NAME"
            throw APIError(
                status: 421, code: .misdirectedRequest,
                message:
                    "\(what); it answers to loopback addresses, localhost and its bind host, "
                    + "and to names allowed with \(allow)",
                field: "Host")
        }
        guard Self.stateChanging.contains(request.method) else { return }
        let site = header(.secFetchSite, of: request).lowercased()
        if site == "cross-site" || site == "same-site" {
            throw APIError(
                status: 403, code: .forbidden,
                message: "Sec-Fetch-Site \"\(site)\": a page on another origin may not change the fleet; "
                    + "use the admin page itself, or a client that is not a browser",
                field: "Sec-Fetch-Site")
        }
        let origin = header(.origin, of: request)
        if !origin.isEmpty,
            !["http://" + host.lowercased(), "https://" + host.lowercased()].contains(origin.lowercased())
        {
            throw APIError(
                status: 403, code: .forbidden,
                message: "Origin \"\(origin.prefix(100))\" is not this admin's own (http://\(host.prefix(100))): "
                    + "a page on another origin may not change the fleet",
                field: "Origin")
        }
        if !request.body.isEmpty || request.bodyTooLarge {
            let contentType = header(.contentType, of: request)
            let mediaType = contentType.split(separator: ";", omittingEmptySubsequences: false).first ?? ""
            guard mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/json" else {
                let what =
                    contentType.isEmpty
                    ? "the request has no Content-Type" : "Content-Type \"\(contentType.prefix(100))\" is not JSON"
                throw APIError(
                    status: 415, code: .unsupportedMediaType,
                    message: "\(what); send the body as JSON with `Content-Type: application/json`",
                    field: "Content-Type")
            }
        }
    }

    /// A header's value without surrounding spaces; empty when absent.
    private func header(_ name: HTTPField.Name, of request: IncomingRequest) -> String {
        request.head.headerFields[name]?.trimmingCharacters(in: .whitespaces) ?? ""
    }

    private func allows(_ name: String) -> Bool {
        name == "localhost" || name == "[::1]" || Self.isLoopbackIPv4(name) || allowedNames.contains(name)
    }

    /// The name part of a `Host` value, lower case, without its port (`[::1]` keeps its brackets);
    /// nil when it is empty or malformed.
    static func hostName(_ host: String) -> String? {
        var name = Substring(host.lowercased())
        var port: Substring = ""
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return nil }
            port = name[name.index(after: close)...]
            name = name[...close]
        } else if let colon = name.firstIndex(of: ":") {
            port = name[colon...]
            name = name[..<colon]
        }
        if !port.isEmpty {
            let digits = port.dropFirst()
            guard port.first == ":", (1...5).contains(digits.count), digits.allSatisfy(\.isASCIIDigit) else {
                return nil
            }
        }
        guard !name.isEmpty, name.allSatisfy({ $0.isASCIIHostCharacter }) else { return nil }
        return String(name)
    }

    /// Whether `name` is a dotted-decimal address in 127.0.0.0/8 (`127.0.0.1.nip.io` is not).
    static func isLoopbackIPv4(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCIIDigit) && Int(part)! <= 255
        }
    }

    /// An IPv6 literal in brackets, as it appears in `Host`; other names unchanged.
    static func bracketed(_ host: String) -> String {
        host.filter { $0 == ":" }.count > 1 && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// A name given to `--admin-allowed-host` as `Host` carries it (lower case, IPv6 in
    /// brackets); nil when it is not a bare host name (a scheme, a port, a path, spaces).
    static func allowedName(_ text: String) -> String? {
        let name = bracketed(text.trimmingCharacters(in: .whitespaces).lowercased())
        return hostName(name) == name ? name : nil
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
    /// Letters, digits, `-`, `.`, and what IPv6 literals use (`[`, `]`, `:`).
    fileprivate var isASCIIHostCharacter: Bool { isASCII && (isLetter || isNumber || "-.[]:_".contains(self)) }
}
