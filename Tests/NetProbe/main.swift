// beekon-net-probe
//
// A child process for the descriptor-exhaustion test, run under a low `ulimit -n`: taking every
// descriptor would starve every other test in a shared process. It uploads twice to a loopback port that
// is bound but not listening: first with descriptors to spare (the kind printed is `refused`),
// then with every descriptor taken (the kind printed should be `too-many-open-files`), one line
// `KIND<TAB>MESSAGE` each.
import BeekonNet
import Foundation

/// Exits with `message` on standard error.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("beekon-net-probe: \(message)\n".utf8))
    exit(1)
}

// A port nothing listens on: bound (so nobody else takes it) but never listening.
let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
var address = sockaddr_in()
address.sin_family = sa_family_t(AF_INET)
address.sin_addr.s_addr = inet_addr("127.0.0.1")
var length = socklen_t(MemoryLayout<sockaddr_in>.size)
let bound = withUnsafeMutablePointer(to: &address) { pointer in
    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
        bind(holder, socketAddress, length) == 0 && getsockname(holder, socketAddress, &length) == 0
    }
}
guard holder >= 0, bound else { fail("cannot bind a loopback socket: \(String(cString: strerror(errno)))") }
let port = UInt16(bigEndian: address.sin_port)

let transport: HTTPTransport
do {
    transport = try HTTPTransport(maxConcurrentTransfers: 4, connectTimeoutMillis: 5_000)
} catch {
    fail("\(error)")
}

/// Sends one request for `key` and prints how it failed (or its status).
func upload(key: String) {
    let done = DispatchSemaphore(value: 0)
    let request = OutboundRequest(url: "http://127.0.0.1:\(port)/ingest", body: Array("{}".utf8), connectionKey: key)
    transport.submit(request) { result in
        switch result {
        case .failed(let kind, let message, _): print("\(kind.rawValue)\t\(message)")
        case .response(let response, _, _): print("\(response.status.code)\t")
        }
        done.signal()
    }
    guard done.wait(timeout: .now() + 30) == .success else { fail("no answer within 30 s") }
}

upload(key: "with-descriptors")

// Take every descriptor left (the test starts the probe under a low `ulimit -n`, so that is few).
var taken: [Int32] = []
while taken.count < 4096 {
    let descriptor = open("/dev/null", O_RDONLY)
    if descriptor < 0 {
        guard errno == EMFILE else { fail("open: \(String(cString: strerror(errno)))") }
        break
    }
    taken.append(descriptor)
}
guard taken.count < 4096 else { fail("the open-file limit is too high to exhaust; run me under ulimit -n 256") }
upload(key: "without-descriptors")
for fd in taken { close(fd) }
transport.shutdown()
