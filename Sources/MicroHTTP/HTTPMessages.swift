public import HTTPTypes

/// One request as the daemon collected it, handed to the responder.
public struct IncomingRequest: Sendable {
    /// Its method, its path (without the query string, read into `query`) and its header fields
    /// in the order the client sent them (a field sent twice is there twice: `headerFields[name]`
    /// joins the values, so a repeated `Host` or `Content-Type` never passes a check for one).
    public var head: HTTPRequest
    /// Query arguments, decoded, by name (the last one wins when a name repeats).
    public var query: [String: String]
    /// The body (empty when it went over the limit).
    public var body: [UInt8]
    /// The body went over the daemon's limit; `body` is empty then.
    public var bodyTooLarge: Bool
    /// The body would have passed the daemon's memory budget (busy: answer 503 with
    /// `Retry-After`); `body` is empty then.
    public var bodyOverBudget: Bool
    /// The values of `Content-Length` headers that disagree (empty when they agree): the body's
    /// end is ambiguous, so the request must be refused (400) and the connection closed.
    public var conflictingContentLengths: [String]
    /// The client's TCP port (0 when unknown): requests with the same port came over one connection.
    public var clientPort: UInt16

    /// A request, as a test or the daemon builds it.
    public init(
        method: HTTPRequest.Method, path: String, query: [String: String] = [:], headerFields: HTTPFields = [:],
        body: [UInt8] = [], bodyTooLarge: Bool = false, bodyOverBudget: Bool = false,
        conflictingContentLengths: [String] = [], clientPort: UInt16 = 0
    ) {
        head = HTTPRequest(method: method, scheme: nil, authority: nil, path: path, headerFields: headerFields)
        self.query = query
        self.body = body
        self.bodyTooLarge = bodyTooLarge
        self.bodyOverBudget = bodyOverBudget
        self.conflictingContentLengths = conflictingContentLengths
        self.clientPort = clientPort
    }

    /// `GET`, `POST`, …
    public var method: String { head.method.rawValue }
    /// The path, without the query string.
    public var path: String { head.path ?? "" }
}

/// A response to send: its head (status and header fields, in order) and its body.
public struct OutgoingReply: Sendable {
    public var head: HTTPResponse
    public var body: [UInt8]

    /// A reply with a status, header fields and a body.
    public init(status: Int, headerFields: HTTPFields = [:], body: [UInt8] = []) {
        head = HTTPResponse(status: .init(code: status), headerFields: headerFields)
        self.body = body
    }

    /// The status code.
    public var status: Int { head.status.code }

    /// A JSON reply.
    public static func json(_ status: Int, _ body: [UInt8], headerFields: HTTPFields = [:]) -> OutgoingReply {
        var fields: HTTPFields = [.contentType: "application/json"]
        fields.append(contentsOf: headerFields)
        return OutgoingReply(status: status, headerFields: fields, body: body)
    }
}

/// What to do with a request once the responder has decided.
public enum Disposition: Sendable {
    /// Answer, after `delayMillis` (the connection is suspended meanwhile, no thread waits).
    case reply(OutgoingReply, delayMillis: Int)
    /// Suspend the connection without answering; close it after `millis`.
    case hang(millis: Int)
    /// Close the connection without answering.
    case close
    /// Suspend the connection and call `start` with a handle that answers (or closes) it from any
    /// thread; `timeoutReply` goes out if neither comes within `timeoutMillis`. No thread waits.
    case later(timeoutMillis: Int, timeoutReply: OutgoingReply, start: @Sendable (PendingReply) -> Void)
    /// Answer 200 with `headers` and keep the connection open, sending what `stream` is given
    /// (Server-Sent Events and the like) until it or the client closes.
    case stream(headerFields: HTTPFields, EventStream)
}

extension Disposition {
    /// What it answers, in a few words for a log line: the status, with `body` the start of the
    /// body (which says why a request was refused), and what a scripted or deferred answer does.
    public func summary(body: Bool) -> String {
        switch self {
        case .reply(let reply, let delay):
            var text = "\(reply.status)"
            if body, !reply.body.isEmpty { text += " " + String(decoding: reply.body.prefix(300), as: UTF8.self) }
            return delay > 0 ? text + " after \(delay) ms (scripted latency)" : text
        case .hang(let millis): return "no answer; closed after \(millis) ms (scripted hang)"
        case .close: return "closed without an answer (scripted)"
        case .later: return "answered later"
        case .stream: return "an event stream"
        }
    }
}

/// The answer to a request the daemon holds suspended (`Disposition.later`); the first
/// `send` or `close` wins, later ones (and the timeout after either) do nothing.
public struct PendingReply: Sendable {
    let core: MicroHTTPDaemon.Core
    let connection: Int
    let generation: UInt64

    /// Answers the request and hands the connection back to the daemon.
    public func send(_ reply: OutgoingReply) {
        core.answer(connection, generation: generation, with: reply)
    }

    /// Closes the connection without answering, as a server that crashed or dropped it would.
    public func close() {
        // Resumed with no answer waiting, the request's last call refuses it and MHD closes.
        core.resume(connection, generation: generation)
    }
}
