/// How the fleet's `getCurrentLocation` calls were answered.
public struct CurrentLocationCounts: Sendable, Hashable, Codable {
    /// With the next OS fix.
    public var fix = 0
    /// No fix within the timeout (the SDK's null).
    public var timedOut = 0
    /// A precondition failed (permission revoked, location services off): the SDK's error.
    public var unavailable = 0

    public init() {}
}
