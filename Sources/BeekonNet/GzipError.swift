/// A gzip failure: zlib's result code (or one of ours) and what it means.
public struct GzipError: Error, Sendable, Hashable, CustomStringConvertible {
    /// zlib's result code, or a negative code below zlib's range for our own checks.
    public let code: Int32
    /// What went wrong, in words.
    public let message: String

    /// An error from a code and a message.
    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// zlib's Z_STREAM_ERROR: the stream state is inconsistent.
    public static let streamError: Int32 = -2
    /// zlib's Z_DATA_ERROR: the input is not valid gzip data.
    public static let dataError: Int32 = -3
    /// zlib's Z_MEM_ERROR: out of memory.
    public static let memoryError: Int32 = -4
    /// zlib's Z_BUF_ERROR: no progress was possible.
    public static let bufferError: Int32 = -5
    /// The input ended before the gzip stream did.
    public static let truncated: Int32 = -100
    /// The inflated data would exceed the caller's limit.
    public static let outputTooLarge: Int32 = -101
    /// The caller refused more output (its memory budget is spent).
    public static let outputRefused: Int32 = -102

    public var description: String { "gzip: \(message) (code \(code))" }
}
