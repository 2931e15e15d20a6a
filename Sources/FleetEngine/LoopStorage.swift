/// The devices' stores as the loop keeps them: the driver's shelf they come from, the rows
/// waiting to share one commit per device, and the store errors held back from the log.
struct LoopStorage {
    let stores: any StoreShelf
    /// Rows waiting to share one commit per device (see `CommitQueue`).
    var commits = CommitQueue()
    /// Store errors for the log, rate-limited.
    var errorLog = StoreErrorLog()
}
