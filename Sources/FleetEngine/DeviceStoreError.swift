public struct DeviceStoreError: Sendable, Hashable {
    /// The cause: `full`, `tooManyOpenFiles`, `ioError`, `readOnly`, `corrupt`, `busy`, … (the
    /// raw values of `StoreError.Kind`).
    public var cause: String
    /// SQLite's own message (`database or disk is full`).
    public var message: String
    /// When the device entered `storeError`, virtual Unix ms.
    public var since: Int64
}
