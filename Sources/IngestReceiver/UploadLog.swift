/// The most recent `capacity` uploads the script answered, oldest first; kept under the
/// receiver's lock, in the order the script saw them.
struct UploadLog {
    /// Uploads kept: memory stays bounded (a few hundred bytes each) however long a run lasts.
    static let capacity = 100_000

    /// Up to twice `capacity`, trimmed a `capacity` at a time, so an append costs O(1) on average.
    private var entries: [LoggedUpload] = []

    mutating func append(_ upload: LoggedUpload) {
        if entries.count == 2 * Self.capacity { entries.removeFirst(Self.capacity) }
        entries.append(upload)
    }

    /// The most recent `capacity` uploads, oldest first.
    var recent: [LoggedUpload] { Array(entries.suffix(Self.capacity)) }
}
