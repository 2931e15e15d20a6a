public import HTTPTypes

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
