import Foundation
import Testing

@testable import BeekonNet

@Suite("Gzip")
struct GzipTests {
    static func sampleJSON(fixes: Int) -> [UInt8] {
        var text = #"{"schema_version":1,"locations":["#
        for index in 0..<fixes {
            if index > 0 { text += "," }
            text +=
                #"{"id":"0190d4e2-7b1a-7c3e-9f10-\#(String(format: "%012x", index))","latitude":"#
                + #"\#(37.7749 + Double(index) * 1e-5)}"#
        }
        return Array((text + "]}").utf8)
    }

    /// Writes `data` to a temporary file, runs the system `gzip` with `arguments` and the file's
    /// path, and returns what it printed.
    static func systemGzip(_ arguments: [String], on data: [UInt8]) throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "beekon-gzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("batch")
        try Data(data).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip"] + arguments + [file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return Array(printed)
    }

    @Test("gzip output inflates with the system gzip -d to the same bytes", arguments: [0, 1, 100, 5000])
    func systemGzipReadsIt(fixes: Int) throws {
        let json = Self.sampleJSON(fixes: fixes)
        let compressed = try GzipCompressor().compress(json)
        #expect(compressed.starts(with: [0x1F, 0x8B]))
        #expect(try Self.systemGzip(["-d", "-c"], on: compressed) == json)
    }

    @Test("one compressor is reused across many bodies and gives the same bytes for the same input")
    func reusable() throws {
        let compressor = try GzipCompressor()
        let decompressor = try GzipDecompressor()
        let first = try compressor.compress(Self.sampleJSON(fixes: 100))
        for fixes in [3, 0, 250, 100] {
            let json = Self.sampleJSON(fixes: fixes)
            #expect(try decompressor.decompress(try compressor.compress(json)) == json)
        }
        #expect(try compressor.compress(Self.sampleJSON(fixes: 100)) == first)
    }

    @Test("gunzip reads what the system gzip wrote, including concatenated members")
    func readsSystemGzip() throws {
        let json = Self.sampleJSON(fixes: 40)
        let compressed = try Self.systemGzip(["-9", "-c"], on: json)
        let decompressor = try GzipDecompressor()
        #expect(try decompressor.decompress(compressed) == json)
        #expect(try decompressor.decompress(compressed + compressed) == json + json)
    }

    @Test("bad gzip, truncated gzip and a body over the limit are errors, not crashes")
    func hostileInput() throws {
        let decompressor = try GzipDecompressor(maxOutputBytes: 10_000)
        let good = try GzipCompressor().compress(Self.sampleJSON(fixes: 10))
        #expect(throws: GzipError.self) { try decompressor.decompress([]) }
        #expect(throws: GzipError.self) { try decompressor.decompress(Array("not gzip at all".utf8)) }
        #expect(throws: GzipError.self) { try decompressor.decompress(Array(good.prefix(good.count / 2))) }
        #expect(throws: GzipError.self) { try decompressor.decompress(good + [0x00, 0x01]) }
        let bomb = try GzipCompressor(level: 9).compress([UInt8](repeating: 0x20, count: 1 << 20))
        do {
            _ = try decompressor.decompress(bomb)
            Issue.record("a 1 MiB body passed a 10,000-byte limit")
        } catch {
            #expect(error.code == GzipError.outputTooLarge)
        }
        // The stream is still usable after every failure.
        #expect(try decompressor.decompress(good) == Self.sampleJSON(fixes: 10))
    }
}
