import BeekonDevice

/// The tokens this receiver issued and accepts: access tokens with their expiry, refresh tokens,
/// and the configured ones. Token text comes from a SplitMix64 seeded by the run seed, so a run
/// is reproducible.
struct TokenIssuer {
    /// A freshly issued pair.
    struct Issued: Sendable, Hashable {
        var accessToken: String
        var refreshToken: String
        var expiresIn: Int
    }

    /// Why a request's `Authorization` was refused.
    enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        case missing
        case unknown
        case expired

        var description: String {
            switch self {
            case .missing: "missing Authorization header"
            case .unknown: "the token was not issued by this receiver nor configured"
            case .expired: "the token has expired; refresh it"
            }
        }
    }

    private let staticTokens: Set<String>
    private let seedRefreshTokens: Set<String>
    private var generator: SplitMix64
    /// Issued access tokens and their expiry, Unix ms.
    private var accessTokens: [String: Int64] = [:]
    private var refreshTokens: Set<String> = []

    init(seed: UInt64, staticTokens: [String], refreshTokens: [String]) {
        self.staticTokens = Set(staticTokens)
        seedRefreshTokens = Set(refreshTokens)
        generator = SplitMix64(seed: seed).derived(0x746F_6B65_6E73)  // "tokens"
    }

    /// Whether `refreshToken` may be exchanged: one this receiver issued, a configured seed, or
    /// any non-empty token when no seed is configured.
    func accepts(refreshToken: String) -> Bool {
        guard !refreshToken.isEmpty else { return false }
        return refreshTokens.contains(refreshToken) || seedRefreshTokens.isEmpty
            || seedRefreshTokens.contains(refreshToken)
    }

    /// Issues a new access token valid for `expiresIn` seconds from `now` (Unix ms), and a new
    /// refresh token.
    mutating func issue(expiresIn: Int, now: Int64) -> Issued {
        let access = "at-" + randomHex()
        let refresh = "rt-" + randomHex()
        accessTokens[access] = now + Int64(expiresIn) * 1000
        refreshTokens.insert(refresh)
        return Issued(accessToken: access, refreshToken: refresh, expiresIn: expiresIn)
    }

    /// Checks an `Authorization` header value (`Bearer <token>`, or the bare token of the SDK's
    /// raw strategy) at `now` (Unix ms).
    func check(authorization: String?, now: Int64) -> Refusal? {
        guard var token = authorization?.trimmingCharacters(in: .whitespaces), !token.isEmpty else { return .missing }
        if token.lowercased().hasPrefix("bearer ") {
            token = String(token.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        if staticTokens.contains(token) { return nil }
        guard let expiry = accessTokens[token] else { return .unknown }
        return now < expiry ? nil : .expired
    }

    private mutating func randomHex() -> String {
        let high = generator.next()
        let low = generator.next()
        return String(format: "%016llx%016llx", high, low)
    }

    /// The fields of a token request body: JSON when it looks like JSON (or says so), else
    /// `application/x-www-form-urlencoded`. Nil when the body is neither.
    static func fields(body: [UInt8], contentType: String?) -> [String: String]? {
        let type = contentType?.lowercased() ?? ""
        let first = body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if type.contains("json") || first == UInt8(ascii: "{") {
            guard case .object(let object)? = try? BoundedJSONParser(maxDepth: 8, maxElements: 1000).parse(body)
            else { return nil }
            var fields: [String: String] = [:]
            for (key, value) in object {
                if case .string(let text) = value { fields[key] = text }
            }
            return fields
        }
        guard let text = String(validating: body, as: UTF8.self) else { return nil }
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String? {
                part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let key = decode(parts[0]), let value = parts.count > 1 ? decode(parts[1]) : "" else { return nil }
            fields[key] = value
        }
        return fields
    }
}
