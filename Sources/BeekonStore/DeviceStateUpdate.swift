import BeekonDevice
import Synchronization

/// Several device-state keys to set or clear together, written in one transaction.
///
/// Values are encoded as they are set; a value that cannot be encoded is reported by
/// `DeviceStore.writeState(_:)`, which then writes nothing.
public struct DeviceStateUpdate: Sendable {
    /// One key's new JSON text, or nil to remove the key.
    struct Change: Sendable {
        var name: String
        var json: String?
    }

    /// In the order they were made; a later change to the same key wins.
    private(set) var changes: [Change] = []
    /// The first value that could not be encoded: its key and why.
    private(set) var encodingFailure: (name: String, message: String)?

    /// An update that changes nothing yet.
    public init() {}

    /// Sets `key` to `value`, or removes it when `value` is nil.
    public mutating func set<Value>(_ key: DeviceStateKey<Value>, to value: Value?) {
        guard let value else {
            clear(key)
            return
        }
        append(key, encoding: value)
    }

    private mutating func append<Value: Codable & Sendable>(_ key: DeviceStateKey<Value>, encoding value: Value) {
        do {
            let data = try DeviceStateCoding.encoder.encode(value)
            changes.append(Change(name: key.name, json: String(decoding: data, as: UTF8.self)))
        } catch {
            if encodingFailure == nil {
                encodingFailure = (key.name, "cannot encode \(key.name): \(error)")
            }
        }
    }

    /// Sets the config: its JSON is reused while the config is the one last encoded, as every
    /// device of a group is given the same (encoding it was half of a spawn's state writes).
    public mutating func set(_ key: DeviceStateKey<BeekonConfig>, to value: BeekonConfig?) {
        guard let value else {
            clear(key)
            return
        }
        if let json = Self.lastConfig.withLock({ $0?.config == value ? $0?.json : nil }) {
            changes.append(Change(name: key.name, json: json))
            return
        }
        append(key, encoding: value)
        if let json = changes.last?.json, encodingFailure == nil {
            Self.lastConfig.withLock { $0 = (value, json) }
        }
    }

    /// The config last encoded, and its JSON.
    private static let lastConfig = Mutex<(config: BeekonConfig, json: String)?>(nil)

    /// Removes `key`, so reading it gives nil.
    public mutating func clear<Value>(_ key: DeviceStateKey<Value>) {
        changes.append(Change(name: key.name, json: nil))
    }

    /// Whether nothing was set or cleared.
    public var isEmpty: Bool { changes.isEmpty && encodingFailure == nil }
}
