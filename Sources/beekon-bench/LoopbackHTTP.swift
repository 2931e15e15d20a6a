import Foundation

/// A minimal blocking HTTP/1.1 client over one loopback socket, so the bench controls every
/// connection (its source address, when it is opened, that it stays idle).
enum LoopbackHTTP {
    /// A TCP socket connected (or connecting, when not `blocking`) from `source` to 127.0.0.1:`port`; -1 on failure.
    static func connect(port: UInt16, from source: String = "127.0.0.1", blocking: Bool = true) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var local = address(source, port: 0)
        var remote = address("127.0.0.1", port: port)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if !blocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, connected == 0 || (!blocking && errno == EINPROGRESS) else {
            close(fd)
            return -1
        }
        return fd
    }

    private static func address(_ text: String, port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(text)
        return address
    }

    /// POSTs a gzipped JSON `body` to /ingest with `Connection: close` and reads the answer to
    /// its end; the status (0 when none came) and the seconds from connect to the last byte.
    static func post(port: UInt16, body: [UInt8], timeoutSeconds: Int) -> (status: Int, seconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let fd = connect(port: port)
        guard fd >= 0 else { return (0, (clock.now - start).seconds) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let head =
            "POST /ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Encoding: gzip\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let request = Array(head.utf8) + body
        var sent = 0
        while sent < request.count {
            let written = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { break }  // Refused early (413): the answer may still be there to read.
            sent += written
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let read = recv(fd, &buffer, buffer.count, 0)
            if read <= 0 { break }
            answer.append(contentsOf: buffer[0..<read])
        }
        let seconds = (clock.now - start).seconds
        // "HTTP/1.1 413 …"
        let line = String(decoding: answer.prefix(32), as: UTF8.self).split(separator: " ")
        return (line.count > 1 ? Int(line[1]) ?? 0 : 0, seconds)
    }
}
