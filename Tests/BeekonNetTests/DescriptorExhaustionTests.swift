import Foundation
import Testing

/// A socket that cannot be made for lack of descriptors is reported as that, not as a refusal.
/// The descriptors are taken in a child process (`beekon-net-probe`, under `ulimit -n 256`): in
/// this one that would starve every test running beside it.
@Suite("Descriptor exhaustion")
struct DescriptorExhaustionTests {
    @Test(
        """
        an upload with every descriptor taken fails as too-many-open-files; \
        the same upload with descriptors to spare as refused
        """
    )
    func exhaustedDescriptorsAreNamed() throws {
        let probe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("beekon-net-probe").path
        #expect(FileManager.default.isExecutableFile(atPath: probe), "beekon-net-probe was not built next to the tests")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "ulimit -n 256 && exec \"$0\"", probe]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // The probe waits at most 30 s per upload, so this read ends.
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(complaint)")
        let kinds = printed.split(separator: "\n").map {
            $0.split(separator: "\t", maxSplits: 1).first.map(String.init) ?? ""
        }
        #expect(kinds == ["refused", "too-many-open-files"], "\(printed)")
    }
}
