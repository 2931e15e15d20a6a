import BeekonDevice
import Foundation
internal import SQLite

extension DeviceStore {
    /// The stored value of `key`, or nil when it was never set or was cleared.
    public func readState<Value>(_ key: DeviceStateKey<Value>) throws(StoreError) -> Value? {
        if fresh { return nil }
        let operation = "read device state \(key.name)"
        let json = try perform(operation) { connection throws(SQLiteError) -> String? in
            let query = try statement(.readState, on: connection)
            defer { query.reset() }
            try query.bind(key.name, at: 1)
            return try query.step() ? query.string(at: 0) : nil
        }
        guard let json else { return nil }
        do {
            return try DeviceStateCoding.decoder.decode(Value.self, from: Data(json.utf8))
        } catch {
            throw StoreError(
                kind: .invalidValue, path: path, operation: operation,
                message: "stored value \(json) is not a \(Value.self): \(error)")
        }
    }

    /// Sets `key` to `value`, or clears it when `value` is nil; committed before this returns.
    public func writeState<Value>(_ key: DeviceStateKey<Value>, _ value: Value?) throws(StoreError) {
        var update = DeviceStateUpdate()
        update.set(key, to: value)
        try writeState(update)
    }

    /// Applies every change in `update` in one transaction: all of them are stored, or none.
    public func writeState(_ update: DeviceStateUpdate) throws(StoreError) {
        let operation = "write device state"
        if let failure = update.encodingFailure {
            throw StoreError(
                kind: .invalidValue, path: path, operation: "\(operation) \(failure.name)",
                message: failure.message)
        }
        guard !update.changes.isEmpty else { return }
        try perform(operation) { connection throws(SQLiteError) in
            try transaction(on: connection) { () throws(SQLiteError) in
                for change in update.changes {
                    if let json = change.json {
                        let write = try statement(.writeState, on: connection)
                        try write.bind(change.name, at: 1)
                        try write.bind(json, at: 2)
                        try write.run()
                    } else {
                        let clear = try statement(.clearState, on: connection)
                        try clear.bind(change.name, at: 1)
                        try clear.run()
                    }
                }
            }
        }
    }

    /// Everything the device persists, as one value (what a relaunch restores).
    public func readDeviceState() throws(StoreError) -> PersistedDeviceState {
        PersistedDeviceState(
            installID: try readState(.installID),
            trackingIntent: try readState(.trackingIntent) ?? false,
            sessionID: try readState(.sessionID),
            config: try readState(.config),
            extras: try readState(.extras) ?? [:],
            geofences: try readState(.geofences) ?? [],
            auth: try readState(.auth), sentBatch: try readState(.sentBatch), sdkVersion: try readState(.sdkVersion))
    }

    /// Stores the changes a device asked for (its `persistState` action), in one transaction.
    public func writeState(_ changes: [DeviceStateChange]) throws(StoreError) {
        var update = DeviceStateUpdate()
        for change in changes {
            switch change {
            case .installID(let id): update.set(.installID, to: id)
            case .trackingIntent(let intent): update.set(.trackingIntent, to: intent)
            case .sessionID(let session): update.set(.sessionID, to: session)
            case .config(let config): update.set(.config, to: config)
            case .extras(let extras): update.set(.extras, to: extras)
            case .geofences(let geofences): update.set(.geofences, to: geofences)
            case .auth(let auth): update.set(.auth, to: auth)
            case .sentBatch(let batch): update.set(.sentBatch, to: batch)
            case .sdkVersion(let version): update.set(.sdkVersion, to: version)
            }
        }
        try writeState(update)
    }
}
