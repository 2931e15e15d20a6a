internal import CMicroHTTPD
import HTTPTypes
import Synchronization

/// A long-lived response body fed from any thread (Server-Sent Events): `send` queues bytes,
/// the daemon writes them when the socket can take them. With nothing to write, the connection
/// is suspended, so an idle stream holds no thread and costs no polling.
///
/// Sendable: its state is in one `Mutex`. A client that stops reading is cut off once
/// `maxBufferedBytes` wait, so a stalled reader cannot grow memory without bound.
public final class EventStream: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var closed = false
        /// The connection while it is suspended waiting for bytes (its generation too).
        var parked: (connection: Int, generation: UInt64)?
        var connection = 0
        var core: MicroHTTPDaemon.Core?
    }

    private let state = Mutex(State())
    /// The most bytes that may wait for a slow client before the stream is closed.
    public let maxBufferedBytes: Int

    /// A stream that closes itself when more than `maxBufferedBytes` wait.
    public init(maxBufferedBytes: Int = 1 << 20) {
        self.maxBufferedBytes = maxBufferedBytes
    }

    /// Whether the stream is over (closed here, by the client, or by the daemon stopping).
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Queues bytes for the client; false when the stream is closed (drop it then).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        let wake: (core: MicroHTTPDaemon.Core, connection: Int, generation: UInt64)? = state.withLock { state in
            guard !state.closed else { return nil }
            if state.buffer.count + bytes.count > maxBufferedBytes {
                state.closed = true
                state.buffer = []
            } else {
                state.buffer.append(contentsOf: bytes)
            }
            guard let parked = state.parked, let core = state.core else { return nil }
            state.parked = nil
            return (core, parked.connection, parked.generation)
        }
        if let wake { wake.core.resume(wake.connection, generation: wake.generation) }
        return !isClosed
    }

    /// Ends the stream once what is queued has been written.
    public func close() {
        let wake: (core: MicroHTTPDaemon.Core, connection: Int, generation: UInt64)? = state.withLock { state in
            state.closed = true
            guard let parked = state.parked, let core = state.core else { return nil }
            state.parked = nil
            return (core, parked.connection, parked.generation)
        }
        if let wake { wake.core.resume(wake.connection, generation: wake.generation) }
    }

    /// Queues the streaming response on `connection`; runs in the access handler.
    func start(on connection: OpaquePointer, core: MicroHTTPDaemon.Core, headerFields: HTTPFields) -> MHD_Result {
        state.withLock { state in
            state.connection = Int(bitPattern: connection)
            state.core = core
        }
        let context = Unmanaged.passRetained(self).toOpaque()  // Released by the free callback below.
        let response = MHD_create_response_from_callback(
            beekon_mhd_size_unknown(), 32 * 1024, EventStream.read, context, EventStream.free)
        guard let response else {
            Unmanaged<EventStream>.fromOpaque(context).release()  // The free callback will not run.
            return MHD_Result.NO
        }
        for field in headerFields {
            _ = MHD_add_response_header(response, field.name.rawName, field.value)
        }
        let queued = MHD_queue_response(connection, 200, response)
        MHD_destroy_response(response)
        return queued
    }

    /// Copies queued bytes into MHD's buffer; with none, suspends the connection until `send`.
    private func fill(_ buffer: UnsafeMutablePointer<CChar>?, max: Int) -> Int {
        state.withLock { state in
            if !state.buffer.isEmpty, let buffer {
                let count = min(max, state.buffer.count)
                state.buffer.withUnsafeBytes { bytes in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress!, byteCount: count)
                }
                state.buffer.removeFirst(count)
                return count
            }
            guard !state.closed, let core = state.core, let pointer = OpaquePointer(bitPattern: state.connection),
                let generation = core.suspend(pointer)
            else {
                state.closed = true
                return beekon_mhd_content_reader_end_of_stream()
            }
            state.parked = (state.connection, generation)
            return 0
        }
    }

    private static let read: MHD_ContentReaderCallback = { context, _, buffer, max in
        // Unretained: the response holds a retain until the free callback.
        Unmanaged<EventStream>.fromOpaque(context!).takeUnretainedValue().fill(buffer, max: max)
    }

    private static let free: MHD_ContentReaderFreeCallback = { context in
        guard let context else { return }
        let stream = Unmanaged<EventStream>.fromOpaque(context).takeRetainedValue()  // Balances start's passRetained.
        stream.state.withLock { state in
            state.closed = true
            state.parked = nil
            state.core = nil
        }
    }
}
