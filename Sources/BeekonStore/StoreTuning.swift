internal import SQLite

/// The numbers that size each store's connection, chosen by measuring 1 000 stores written
/// round robin on a 2-core machine (commits per second, and resident memory per idle store).
enum StoreTuning {
    /// 1 KiB pages: a commit appends two small WAL frames instead of two 4 KiB ones, and cached
    /// pages cost a quarter as much. A fix row is about 130 bytes, so trees stay shallow.
    static let pageSize = 1024
    /// Page-cache pages per connection while in use: enough for an insert's path down the table
    /// and the ts index; a larger cache only left more freed holes in the heap after release.
    static let cachePages = 8
    /// WAL pages before a commit checkpoints (about 260 KiB of WAL). A checkpoint copies them into
    /// the database (it cost two fsyncs before synchronous=OFF; at 128 pages those held 1 000
    /// stores under 40 000 commits/s).
    static let walAutocheckpointPages = 256
    /// The most WAL a store keeps when it closes without a checkpoint: 64 frames of a 1 KiB page
    /// (each frame 24 bytes of header and the page), after the WAL's own 32-byte header. Past
    /// it, the close checkpoints and the WAL goes (see `DeviceStore.close(checkpointing:)`).
    static let walKeptOnCloseBytes = 32 + 64 * (24 + pageSize)
    /// Above the WAL's size at a checkpoint, so the usual reset rewrites the file in place, while
    /// a WAL grown by a large delete is cut back.
    static let journalSizeLimitBytes = 384 * 1024
}
