import BeekonDevice

/// Values a group gives its devices per platform (`sdkVersion`, `osVersion`), assigned
/// round-robin: each platform's devices of the group in the order they are made.
public struct PlatformValues<Value: Sendable & Hashable>: Sendable, Hashable {
    public var ios: [Value]
    public var android: [Value]

    /// The same values for both platforms (none: each takes its default).
    public init(_ both: [Value] = []) {
        ios = both
        android = both
    }

    public init(ios: [Value], android: [Value]) {
        self.ios = ios
        self.android = android
    }

    public subscript(platform: Platform) -> [Value] {
        switch platform {
        case .ios: ios
        case .android: android
        }
    }

    /// Replaces `platform`'s values.
    public mutating func set(_ values: [Value], for platform: Platform) {
        switch platform {
        case .ios: ios = values
        case .android: android = values
        }
    }

    /// The value of the `index`th device of `platform`: the platform's list round-robin, else
    /// `defaults`'.
    public func value(for platform: Platform, index: Int, defaults: [Value]) -> Value {
        let choices = self[platform].isEmpty ? defaults : self[platform]
        return choices[index % choices.count]
    }
}
