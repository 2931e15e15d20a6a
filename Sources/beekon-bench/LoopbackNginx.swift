import FleetCommandLine
import Foundation

/// nginx on a free 127.0.0.1 port answering `POST /ingest` with 204, configured by us in a
/// folder of its own: the fastest well-known HTTP server, to measure the loopback's limit.
final class LoopbackNginx {
    let port: UInt16
    let process: ChildProcess

    var url: String { "http://127.0.0.1:\(port)/ingest" }

    /// The nginx.conf: `workers` worker processes (1 on 2 cores leaves the other to the client),
    /// keep-alive for as long as a run lasts, no access log, and `/ingest` answered 204 after
    /// the body is read off the socket (nginx reads and discards it to keep the connection).
    static func configuration(port: UInt16, prefix: String, workers: Int) -> String {
        """
        worker_processes \(workers);
        worker_rlimit_nofile 20000;
        pid \(prefix)/nginx.pid;
        error_log \(prefix)/error.log warn;
        events {
            worker_connections 8192;
        }
        http {
            access_log off;
            client_body_temp_path \(prefix)/client_body;
            proxy_temp_path \(prefix)/proxy;
            fastcgi_temp_path \(prefix)/fastcgi;
            uwsgi_temp_path \(prefix)/uwsgi;
            scgi_temp_path \(prefix)/scgi;
            client_body_buffer_size 64k;
            client_max_body_size 16m;
            keepalive_timeout 65s;
            keepalive_requests 10000000;
            server {
                listen 127.0.0.1:\(port) backlog=4096;
                location /ingest {
                    return 204;
                }
            }
        }
        """
    }

    /// Writes the configuration under `prefix` and starts `nginx -c CONF -p PREFIX -g 'daemon off;'`;
    /// returns once the port accepts connections.
    init(executable: String, prefix: String, workers: Int) throws {
        try FileManager.default.createDirectory(atPath: prefix, withIntermediateDirectories: true)
        port = try LoopbackPort.free()
        let conf = prefix + "/nginx.conf"
        try Self.configuration(port: port, prefix: prefix, workers: workers)
            .write(toFile: conf, atomically: true, encoding: .utf8)
        process = try ChildProcess(
            executable, ["-c", conf, "-p", prefix, "-g", "daemon off;"], outputPath: prefix + "/nginx.out")
        for _ in 0..<500 {
            if LoopbackPort.accepts(port) { return }
            if process.hasExited { break }
            usleep(10_000)
        }
        process.stop()
        let errors = (try? String(contentsOfFile: prefix + "/error.log", encoding: .utf8)) ?? ""
        throw CommandFailure(
            "nginx did not start on 127.0.0.1:\(port): \(process.output())\(errors)".trimmingCharacters(
                in: .whitespacesAndNewlines))
    }

    /// Stops nginx (SIGTERM to the master's process id).
    func stop() {
        process.stop()
    }
}
