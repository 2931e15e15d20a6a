internal import CZlib

/// Inflates gzip bodies (RFC 1952, one or more members) with zlib, reusing one inflate stream,
/// and refuses to produce more than a limit so a small hostile body cannot exhaust memory.
///
/// Like `GzipCompressor`, the `z_stream` is allocated once and never moves. One owner at a time.
public final class GzipDecompressor {
    private let stream: UnsafeMutablePointer<z_stream>

    /// The most bytes one `decompress` call may produce.
    public let maxOutputBytes: Int

    /// A decompressor that produces at most `maxOutputBytes` per body (64 MiB by default).
    public init(maxOutputBytes: Int = 64 << 20) throws(GzipError) {
        self.maxOutputBytes = maxOutputBytes
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // windowBits 15 + 16 accepts the gzip format only.
        let result = beekon_inflateInit2(stream, 15 + 16)
        guard result == Z_OK else {
            stream.deallocate()
            throw GzipCompressor.error(result, stream: nil, doing: "inflateInit2")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// The data inside the gzip body `input`; concatenated members are joined, as `gzip -d` does.
    ///
    /// Inflating stops as soon as the output would pass `maxOutputBytes` (`outputTooLarge`) or
    /// `admit` refuses the next chunk's byte count (`outputRefused`): a caller's memory budget
    /// is asked before the output grows, so at most one 64 KiB chunk is made past what it allows.
    public func decompress(_ input: [UInt8], admit: (Int) -> Bool = { _ in true }) throws(GzipError) -> [UInt8] {
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: max(16_384, min(input.count * 4, 64 << 10)))
        let outcome: Result<Void, GzipError> = input.withUnsafeBufferPointer { inputBuffer in
            guard inflateReset(stream) == Z_OK else {
                return .failure(GzipCompressor.error(Z_STREAM_ERROR, stream: stream, doing: "inflateReset"))
            }
            stream.pointee.next_in = UnsafeMutablePointer(mutating: inputBuffer.baseAddress)
            stream.pointee.avail_in = uInt(inputBuffer.count)
            defer {
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
            }
            while true {
                let (result, produced) = chunk.withUnsafeMutableBufferPointer { chunkBuffer in
                    stream.pointee.next_out = chunkBuffer.baseAddress
                    stream.pointee.avail_out = uInt(chunkBuffer.count)
                    let result = inflate(stream, Z_NO_FLUSH)
                    return (result, chunkBuffer.count - Int(stream.pointee.avail_out))
                }
                guard output.count + produced <= maxOutputBytes else {
                    return .failure(
                        GzipError(
                            code: GzipError.outputTooLarge,
                            message: "inflated data exceeds the limit of \(maxOutputBytes) bytes"))
                }
                guard admit(produced) else {
                    return .failure(
                        GzipError(code: GzipError.outputRefused, message: "the caller refused more inflated data"))
                }
                output.append(contentsOf: chunk[0..<produced])
                switch result {
                case Z_OK:
                    continue
                case Z_STREAM_END:
                    // Another member may follow, as in `cat a.gz b.gz`.
                    if stream.pointee.avail_in == 0 { return .success(()) }
                    guard inflateReset(stream) == Z_OK else {
                        return .failure(
                            GzipCompressor.error(Z_STREAM_ERROR, stream: stream, doing: "inflateReset"))
                    }
                case Z_BUF_ERROR where stream.pointee.avail_in == 0:
                    return .failure(
                        GzipError(code: GzipError.truncated, message: "the gzip data ends too early"))
                default:
                    return .failure(GzipCompressor.error(result, stream: stream, doing: "inflate"))
                }
            }
        }
        try outcome.get()
        return output
    }
}
