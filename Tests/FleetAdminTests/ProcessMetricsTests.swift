import Foundation
import Testing

@testable import FleetAdmin
@testable import FleetEngine

/// `/metrics` carries the build and the process's own figures, as Prometheus's client libraries
/// export them, beside the fleet's.
@Suite("Build and process metrics")
struct ProcessMetricsTests {
    @Test("beekon_build_info names the version; process_* give CPU, memory, descriptors and start time")
    func processSeries() throws {
        let text = PrometheusText.render(FleetSnapshot())
        #expect(
            text.contains("# TYPE beekon_build_info gauge\nbeekon_build_info{version=\"\(BuildInfo.version)\"} 1\n"))
        func value(_ name: String) throws -> Double {
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(name + " ") }, "no \(name)")
            return try #require(Double(line.dropFirst(name.count + 1)), "\(line)")
        }
        #expect(try value("process_cpu_seconds_total") > 0)
        #expect(try value("process_resident_memory_bytes") > 1_000_000)
        let open = try value("process_open_fds")
        let max = try value("process_max_fds")
        #expect(open >= 3 && open <= max)
        let started = try value("process_start_time_seconds")
        #expect(started <= Date().timeIntervalSince1970 && started > Date().timeIntervalSince1970 - 86_400)
        for family in [
            "process_cpu_seconds_total counter", "process_resident_memory_bytes gauge", "process_open_fds gauge",
            "process_max_fds gauge", "process_start_time_seconds gauge",
        ] {
            #expect(text.contains("# TYPE \(family)\n"), "\(family)")
        }
    }
}
