import Dispatch
import HTTPMessage
import HTTPTypes
import MicroHTTP
import Synchronization

/// A server on 127.0.0.1, port 0, for the transport's tests: it answers with a scripted status,
/// headers, body and delay, and records every request with the client port it came from
/// (one port = one TCP connection). Built on `MicroHTTPDaemon`, so a delayed answer holds a
/// suspended connection, not a thread.
///
/// Sendable: its state is in `Recorder`'s `Mutex`; the daemon is Sendable.
final class LoopbackServer: Sendable {
    /// What the server answers to every request.
    struct Answer: Sendable {
        var status = 200
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
        var delayMillis = 0
        /// Close the connection without answering (after the delay).
        var closeWithoutAnswer = false
    }

    /// One request as the server saw it.
    struct Received: Sendable {
        var method: String
        var path: String
        /// Header values by lower-cased name.
        var headers: [String: String]
        var body: [UInt8]
        var clientPort: UInt16
        var clientAddress: String
        var bodyMicros: Int64
    }

    private struct State {
        var answer = Answer()
        var received: [Received] = []
        var inFlight = 0
        var maxInFlight = 0
    }

    /// The state the daemon's responder reaches; a separate object so the responder does not
    /// keep the server (and so the daemon) alive.
    private final class Recorder: Sendable {
        let state: Mutex<State>

        init(_ answer: Answer) { state = Mutex(State(answer: answer)) }

        /// Records `request`, counts it in flight, and answers it after the scripted delay.
        func respond(to request: IncomingRequest) -> Disposition {
            let answer = state.withLock { state in
                state.received.append(
                    Received(
                        method: request.method, path: request.path,
                        headers: Dictionary(
                            request.head.headerFields.map { ($0.name.canonicalName, $0.value) },
                            uniquingKeysWith: { $1 }),
                        body: request.body, clientPort: request.clientPort, clientAddress: request.clientAddress,
                        bodyMicros: request.bodyMicros))
                state.inFlight += 1
                state.maxInFlight = max(state.maxInFlight, state.inFlight)
                return state.answer
            }
            let reply = OutgoingReply(
                status: answer.status, headerFields: HTTPFields(textPairs: answer.headers), body: answer.body)
            guard answer.delayMillis > 0 else {
                state.withLock { $0.inFlight -= 1 }
                return answer.closeWithoutAnswer ? .close : .reply(reply, delayMillis: 0)
            }
            // The connection waits suspended; a Dispatch timer ends the request (leaving the
            // in-flight count before the client can hear back) and answers or closes it.
            return .later(timeoutMillis: answer.delayMillis + 60_000, timeoutReply: reply) { pending in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(answer.delayMillis)) {
                    self.state.withLock { $0.inFlight -= 1 }
                    if answer.closeWithoutAnswer { pending.close() } else { pending.send(reply) }
                }
            }
        }
    }

    private let recorder: Recorder
    private let daemon: MicroHTTPDaemon

    /// The port the server listens on.
    var port: UInt16 { daemon.port }

    init(answer: Answer = Answer()) throws {
        let recorder = Recorder(answer)
        self.recorder = recorder
        // Idle connections live 10 minutes: tests of connection reuse must not depend on how
        // soon a busy test run (two cores, the cooperative pool shared) gets back to them.
        daemon = try MicroHTTPDaemon(
            host: "127.0.0.1", port: 0, threads: 2, connectionTimeoutSeconds: 600, connectionLimit: 8192,
            maxBodyBytes: 1 << 30, respond: { recorder.respond(to: $0) })
    }

    /// Stops listening and closes every connection; requests still waiting for a delayed answer
    /// are closed unanswered.
    func stop() {
        daemon.stop()
    }

    /// A port on 127.0.0.1 that nothing listens on (a server's, just stopped).
    static func closedPort() throws -> UInt16 {
        let server = try LoopbackServer()
        server.stop()
        return server.port
    }

    var answer: Answer {
        get { recorder.state.withLock { $0.answer } }
        set { recorder.state.withLock { $0.answer = newValue } }
    }

    var received: [Received] { recorder.state.withLock { $0.received } }

    /// The most requests the server was answering at the same moment.
    var maxInFlight: Int { recorder.state.withLock { $0.maxInFlight } }
}
