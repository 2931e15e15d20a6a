/// The `syncStatus` stream's values (spec §6).
public enum SyncStatus: Sendable, Hashable {
    case idle
    case inFlight
    case succeeded(count: Int)
    case retrying(attempt: Int, nextAt: Int64)
    case failed(SyncFailure)
}
