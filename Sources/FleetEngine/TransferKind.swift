import BeekonDevice

/// What a device sends: an upload (with its batch id) or a token refresh.
public enum TransferKind: Sendable, Hashable {
    case upload(UUIDv7)
    case refresh
}
