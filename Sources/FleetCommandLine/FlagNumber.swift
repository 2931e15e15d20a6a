import BeekonDevice
import FleetDescription

/// Reads numeric flags through their field's `NumberRange`: a bad value stops the command
/// with exit code 64 and `The value 'nan' is invalid for '--warp <warp>': "nan" is not a
/// number; expected a number from 0.01 to 10000` (ArgumentParser names the flag and the value).
public enum FlagNumber {
    /// A real number in `range`.
    public static func real(_ range: NumberRange) -> @Sendable (String) throws -> Double {
        { text in try range.read(text) }
    }

    /// A whole number in `range`, read exactly.
    public static func integer(_ range: NumberRange) -> @Sendable (String) throws -> Int {
        { text in Int(try range.readInteger(text)) }
    }

    /// A whole number in `range` that may exceed `Int` on no platform we build for, as `UInt64`.
    public static func unsigned(_ range: NumberRange) -> @Sendable (String) throws -> UInt64 {
        { text in UInt64(try range.readInteger(text)) }
    }

    /// `--warp`: a number in `FleetFile.warpRange`, or `max`.
    public static let warp: @Sendable (String) throws -> Warp = { text in try Warp.read(text) }

    /// A duration (`FleetDuration`), ms.
    public static let duration: @Sendable (String) throws -> Int64 = { text in try FleetDuration.read(text) }

    /// A run's length on the virtual clock (`FleetDuration.runLengthRange`), ms.
    public static let runLength: @Sendable (String) throws -> Int64 = { text in try FleetDuration.readRunLength(text) }

    /// A duration (`FleetDuration`) kept as written, for a fleet file made from the flags.
    public static let durationText: @Sendable (String) throws -> String = { text in
        _ = try FleetDuration.read(text)
        return text
    }
}
