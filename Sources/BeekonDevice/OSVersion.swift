/// The release of the emulated phone's operating system (`18.7`, `16.7.12`, `15`): the SDK's
/// behaviour depends on it where the platform's API does (seed 01: Starting → Tracking at once on
/// iOS 17+, after the first fix on iOS 15–16's legacy delegate).
public struct OSVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numbers as written: one to three of them.
    public let parts: [Int]

    /// A version from its text: one to three dot-separated whole numbers, each 0–999, the first
    /// at least 1; nil otherwise.
    public init?(_ text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(pieces.count) else { return nil }
        var parts: [Int] = []
        for piece in pieces {
            guard !piece.isEmpty, piece.count <= 3, piece.allSatisfy({ $0.isASCII && $0.isNumber }),
                let number = Int(piece)
            else { return nil }
            parts.append(number)
        }
        guard parts[0] >= 1 else { return nil }
        self.parts = parts
    }

    /// The major release (`18` of `18.7`).
    public var major: Int { parts[0] }

    /// The oldest major release Beekon runs on: iOS 15, Android 8 (API 26, whose background
    /// rules seed 02's foreground service answers).
    public static func oldestMajor(_ platform: Platform) -> Int {
        switch platform {
        case .ios: 15
        case .android: 8
        }
    }

    /// Whether `start()` reaches Tracking at once: iOS 17+'s `CLLocationUpdate.liveUpdates`
    /// (seed 01, seed 02); iOS 15–16 and Android wait for the first fix.
    public static func tracksAtStart(_ platform: Platform, _ version: OSVersion?) -> Bool {
        platform == .ios && (version?.major ?? 17) >= 17
    }

    public var description: String { parts.map(String.init).joined(separator: ".") }

    public static func < (lhs: OSVersion, rhs: OSVersion) -> Bool {
        for index in 0..<3 {
            let left = index < lhs.parts.count ? lhs.parts[index] : 0
            let right = index < rhs.parts.count ? rhs.parts[index] : 0
            if left != right { return left < right }
        }
        return false
    }
}
