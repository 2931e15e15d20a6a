import BeekonNet
import Foundation
import HTTPMessage
import HTTPTypes
import Testing

/// `beekon-fleet receive --log-level`, as a child process under `ulimit -n 1024`, where it lowers
/// its connection limit and warns: the level filters that warning and the debug line of every
/// answer, while its banner and summary on stdout stay the same.
@Suite("receive log level")
struct ReceiveLogLevelTests {
    /// What a `receive` printed on stdout and stderr, from its start to a SIGTERM after it
    /// answered one upload sent as text/plain (415).
    static func receive(_ flags: [String]) async throws -> (output: String, errors: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "beekon-receive-log-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let errorPath = folder + "/errors.txt"
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let child = try ReceiveCommandTests.start(
            ["--listen", "127.0.0.1:0", "--db", folder + "/ingest.db"] + flags, openFiles: 1024,
            errors: try #require(FileHandle(forWritingAtPath: errorPath)))
        let (process, url, output, banner) = (child.process, child.url, child.output, child.banner)
        let transport = try HTTPTransport()
        defer { transport.shutdown() }
        let result: HTTPResult = await withCheckedContinuation { continuation in
            transport.submit(
                OutboundRequest(
                    url: url, headerFields: HTTPFields(textPairs: [("Content-Type", "text/plain")]),
                    body: Array("x".utf8), connectionKey: "client")
            ) { continuation.resume(returning: $0) }
        }
        #expect(result.status == 415)
        kill(process.processIdentifier, SIGTERM)
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return (banner + rest, (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }

    static let lowered = "beekon-fleet receive: warning: connection limit lowered from 16384 to 956 "
    static let refused =
        #"beekon-fleet receive: debug: POST /ingest: 415 "#
        + #"{"error":"Content-Type: expected application/json, got \"text/plain\""}"#

    @Test(
        """
        the lowered connection limit is a warning, shown by default \
        and hidden at error; debug shows why an upload was refused
        """,
        arguments: [
            ([], true, false), (["--log-level", "error"], false, false), (["--log-level", "debug"], true, true),
        ]
            as [([String], Bool, Bool)])
    func levelFilters(flags: [String], warns: Bool, debugs: Bool) async throws {
        let (output, errors) = try await Self.receive(flags)
        #expect(errors.contains(Self.lowered) == warns, "\(errors)")
        #expect(errors.contains(Self.refused) == debugs, "\(errors)")
        // The banner and the summary are its output, at every level; the warning is not.
        #expect(output.contains("beekon-fleet receive: listening on http://127.0.0.1:"), "\(output)")
        #expect(output.contains("beekon-fleet receive: stopped. 1 requests"), "\(output)")
        #expect(!output.contains("lowered"), "\(output)")
    }
}
