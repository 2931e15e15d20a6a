import Foundation

/// The JSON coding of state values: sorted keys, so equal values are stored as equal text.
enum DeviceStateCoding {
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    static var decoder: JSONDecoder { JSONDecoder() }
}
