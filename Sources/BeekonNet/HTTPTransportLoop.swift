/// The transport thread's world: the multi handle's transfers, the FIFO of waiting requests and
/// the pool of per-device easy handles. Created, used and dropped on that one thread.
final class HTTPTransportLoop {
    private let inbox: HTTPTransportInbox
    private let multi: CurlMulti
    private let options: CurlEasy.Options
    private let maxConcurrentTransfers: Int
    private let maxIdleHandles: Int

    // Requests in arrival order, waiting for room.
    private var waiting = FIFOQueue<HTTPPendingRequest>()
    private var active: [UnsafeMutableRawPointer: (easy: CurlEasy, pending: HTTPPendingRequest)] = [:]
    // Active transfers by the id they were submitted with.
    private var activeIDs: [Int: UnsafeMutableRawPointer] = [:]
    // Every device's easy handle, busy or idle, by connection key (a request that came while its
    // key's was busy runs on one of its own, not kept here).
    private var pool: [String: CurlEasy] = [:]
    // Idle handles oldest first. An entry is stale when the key's stamp in `idleStamps` differs
    // (the handle was reused or evicted since); stale entries are skipped lazily.
    private var idleOrder: [(key: String, stamp: Int)] = []
    private var idleHead = 0
    private var idleStamps: [String: Int] = [:]
    private var nextStamp = 0
    // Gzips the bodies of requests that ask for it; made on first use, on this thread.
    private var compressor: GzipCompressor?

    init(
        inbox: HTTPTransportInbox, options: CurlEasy.Options, maxConcurrentTransfers: Int,
        maxIdleHandles: Int
    ) {
        self.inbox = inbox
        self.multi = inbox.multi
        self.options = options
        self.maxConcurrentTransfers = maxConcurrentTransfers
        self.maxIdleHandles = maxIdleHandles
    }

    /// Runs transfers until the transport stops, then cancels what is left and frees it all.
    func run() {
        inbox.loopStarted()
        while true {
            let (submitted, cancelled, stopping) = inbox.take()
            waiting.append(contentsOf: submitted)
            if stopping { break }
            var results = cancel(cancelled)
            results += startWaiting()
            do {
                try multi.perform()
            } catch {
                results += failActive(message: error.description)
            }
            results += collectFinished()
            // Completions run here, on the transport thread, outside every lock.
            for (completion, result) in results { completion(result) }
            guard results.isEmpty else { continue }  // a slot may have opened up
            do {
                try multi.poll(timeoutMillis: 1000)
            } catch {
                // Only a broken multi handle fails here; fail everything rather than spin.
                for (completion, result) in failActive(message: error.description) { completion(result) }
            }
        }
        // Nothing more can arrive: `submit` refuses once the stop flag is set.
        let cancelled = cancelEverything()
        for (completion, result) in cancelled { completion(result) }
        inbox.loopExited()
    }

    private typealias Delivery = (completion: @Sendable (HTTPResult) -> Void, result: HTTPResult)

    /// Takes the requests submitted with `ids` off the wire (their connections closed: a transfer
    /// removed before its end leaves its connection unusable, and the handle that held it goes)
    /// or out of the queue. An id no longer here has ended already.
    private func cancel(_ ids: [Int]) -> [Delivery] {
        var deliveries: [Delivery] = []
        let cancelled = HTTPResult.failed(kind: .cancelled, message: "cancelled", latencyMillis: 0)
        for id in ids {
            if let handle = activeIDs.removeValue(forKey: id), let (easy, pending) = active.removeValue(forKey: handle)
            {
                multi.remove(easy)
                // Busy, it has no idle stamp; gone from the pool, its connection goes with it.
                if pool[easy.connectionKey] === easy { pool[easy.connectionKey] = nil }
                deliveries.append((pending.completion, cancelled))
            } else if let pending = waiting.remove(firstWhere: { $0.id == id }) {
                deliveries.append((pending.completion, cancelled))
            }
        }
        return deliveries
    }

    /// Starts waiting requests in FIFO order while there is room.
    private func startWaiting() -> [Delivery] {
        var failures: [Delivery] = []
        while maxConcurrentTransfers == 0 || active.count < maxConcurrentTransfers,
            let pending = waiting.popFirst()
        {
            let ready: HTTPPendingRequest
            do throws(GzipError) {
                ready = try gzipped(pending)
            } catch {
                failures.append(
                    (pending.completion, .failed(kind: .other, message: error.description, latencyMillis: 0)))
                continue
            }
            do {
                try start(ready)
            } catch {
                failures.append(
                    (pending.completion, .failed(kind: .other, message: error.description, latencyMillis: 0)))
            }
        }
        return failures
    }

    /// The request with its body gzipped, if it asked for that.
    private func gzipped(_ pending: HTTPPendingRequest) throws(GzipError) -> HTTPPendingRequest {
        guard pending.request.gzipBody else { return pending }
        let gzip: GzipCompressor
        if let compressor {
            gzip = compressor
        } else {
            gzip = try GzipCompressor()
            compressor = gzip
        }
        var request = pending.request
        request.body = try gzip.compress(request.body)
        request.gzipBody = false
        return HTTPPendingRequest(request: request, id: pending.id, completion: pending.completion)
    }

    private func start(_ pending: HTTPPendingRequest) throws(CurlError) {
        let key = pending.request.connectionKey
        let easy: CurlEasy
        if let existing = pool[key], active[existing.handle] == nil,
            !pending.request.freshConnection, existing.sourceAddress == pending.request.sourceAddress
        {
            easy = existing
            idleStamps[key] = nil
        } else if let existing = pool[key], active[existing.handle] == nil {
            // Asked for a new connection, or one from another address (libcurl would reuse a
            // bound connection for a request asking for none): the idle one closes with its handle.
            idleStamps[key] = nil
            easy = try CurlEasy(connectionKey: key, options: options)
            pool[key] = easy
        } else if pool[key] != nil {
            // The key's connection is busy: this request goes on one of its own.
            easy = try CurlEasy(connectionKey: key, options: options)
        } else {
            easy = try CurlEasy(connectionKey: key, options: options)
            pool[key] = easy
        }
        do {
            try easy.prepare(pending.request)
            try multi.add(easy)
        } catch {
            ended(easy)
            throw error
        }
        active[easy.handle] = (easy, pending)
        if let id = pending.id { activeIDs[id] = easy.handle }
    }

    /// A transfer of `easy` ended: the key's own handle waits for its next request; one made
    /// because the key's was busy takes its place if it has gone, else goes with its connection.
    private func ended(_ easy: CurlEasy) {
        if pool[easy.connectionKey] == nil { pool[easy.connectionKey] = easy }
        guard pool[easy.connectionKey] === easy else { return }
        markIdle(easy)
    }

    private func collectFinished() -> [Delivery] {
        var deliveries: [Delivery] = []
        for (handle, code) in multi.finishedTransfers() {
            guard let (easy, pending) = active.removeValue(forKey: handle) else { continue }
            if let id = pending.id { activeIDs[id] = nil }
            multi.remove(easy)
            deliveries.append((pending.completion, easy.result(of: code)))
            // A cut body leaves its connection open in the handle's cache: the handle goes, and
            // the connection with it, so the server sees the cut now, not at its idle timeout.
            if easy.wasCut {
                if pool[easy.connectionKey] === easy { pool[easy.connectionKey] = nil }
                continue
            }
            ended(easy)
        }
        return deliveries
    }

    /// Records `easy` as idle and evicts the least recently used idle handles beyond the bound,
    /// closing their connections.
    private func markIdle(_ easy: CurlEasy) {
        nextStamp += 1
        idleStamps[easy.connectionKey] = nextStamp
        idleOrder.append((easy.connectionKey, nextStamp))
        while idleStamps.count > maxIdleHandles, idleHead < idleOrder.count {
            let (key, stamp) = idleOrder[idleHead]
            idleHead += 1
            guard idleStamps[key] == stamp else { continue }
            idleStamps[key] = nil
            pool[key] = nil
        }
        // Reuse leaves stale entries behind; drop them once they outnumber the live ones, so a
        // long run with few devices does not grow this list by one entry per transfer.
        if idleOrder.count - idleHead > 2 * idleStamps.count + 1024 {
            idleOrder = idleOrder[idleHead...].filter { idleStamps[$0.key] == $0.stamp }
            idleHead = 0
        }
    }

    private func failActive(message: String) -> [Delivery] {
        let failed = active.values.map { entry -> Delivery in
            multi.remove(entry.easy)
            ended(entry.easy)
            return (entry.pending.completion, .failed(kind: .other, message: message, latencyMillis: 0))
        }
        active = [:]
        activeIDs = [:]
        return failed
    }

    private func cancelEverything() -> [Delivery] {
        let cancelled = HTTPResult.failed(kind: .other, message: "cancelled", latencyMillis: 0)
        var deliveries: [Delivery] = []
        for entry in active.values {
            multi.remove(entry.easy)
            deliveries.append((entry.pending.completion, cancelled))
        }
        active = [:]
        activeIDs = [:]
        for pending in waiting.removeAll() {
            deliveries.append((pending.completion, cancelled))
        }
        // Frees every easy handle (and closes its connections) before the multi handle goes.
        pool = [:]
        idleOrder = []
        idleStamps = [:]
        return deliveries
    }
}
