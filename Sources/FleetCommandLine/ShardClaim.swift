import BeekonDevice
import FleetEngine
import FleetRuntime
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A shard index claimed among processes that share one data folder and know only how many they
/// are (`run --shard auto/N`: compose's `deploy.replicas` or `--scale`, which give a replica no
/// index). Each index has a claim file in `DATA/shard-claims`; a process holds the first whose
/// lock (`flock`) no other process holds, for as long as it lives, and writes when it claimed it.
/// A replica that dies frees its index for the one that replaces it.
public final class ShardClaim {
    /// The shard this process holds.
    public let shard: Shard
    private let folder: String
    /// The open claim file whose lock is the claim; closed (and so released) with this.
    private let descriptor: Int32

    /// Most real time spent looking for a free index, or waiting for the others, by default.
    public static let defaultPatienceSeconds = 300.0

    private init(shard: Shard, folder: String, descriptor: Int32) {
        self.shard = shard
        self.folder = folder
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    static func path(_ folder: String, _ index: Int, of count: Int) -> String {
        "\(folder)/\(index)-of-\(count).claim"
    }

    /// Claims the first free index of `count` under `dataDirectory`, trying again while every
    /// one is held (a replica being replaced), for up to `patienceSeconds`.
    public static func claim(
        count: Int, dataDirectory: String, patienceSeconds: Double = ShardClaim.defaultPatienceSeconds
    ) throws -> ShardClaim {
        let folder = "\(dataDirectory)/shard-claims"
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CommandFailure("--shard auto/\(count): cannot create \(folder): \(error.localizedDescription)")
        }
        let deadline = Date().addingTimeInterval(patienceSeconds)
        while true {
            for index in 0..<count {
                let file = path(folder, index, of: count)
                let descriptor = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else {
                    throw CommandFailure(
                        "--shard auto/\(count): cannot open \(file): \(String(cString: strerror(errno)))")
                }
                guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                    close(descriptor)
                    continue
                }
                let stamp = Array("\(FleetRuntime.wallMillis())\n".utf8)
                guard ftruncate(descriptor, 0) == 0, pwrite(descriptor, stamp, stamp.count, 0) == stamp.count else {
                    let reason = String(cString: strerror(errno))
                    close(descriptor)
                    throw CommandFailure("--shard auto/\(count): cannot write \(file): \(reason)")
                }
                do throws(NumberProblem) {
                    return ShardClaim(
                        shard: try Shard(index: index, count: count), folder: folder, descriptor: descriptor)
                } catch {
                    close(descriptor)
                    throw CommandFailure("--shard auto/\(count): \(error)")
                }
            }
            guard Date() < deadline else {
                throw CommandFailure(
                    "--shard auto/\(count): all \(count) shards of \(dataDirectory) are held by running processes "
                        + "for \(patienceSeconds) s: more replicas share it than \(count)")
            }
            usleep(200_000)
        }
    }

    /// When every shard of the count is held, the instant (Unix ms) all of them start: the latest
    /// claim plus `marginMillis`, up to a whole second. Every replica reads the same claim files,
    /// so every one arrives at the same instant. Waits up to `patienceSeconds` for the others.
    public func commonStart(marginMillis: Int64, patienceSeconds: Double = ShardClaim.defaultPatienceSeconds) throws
        -> Int64
    {
        let deadline = Date().addingTimeInterval(patienceSeconds)
        while true {
            var stamps: [Int64] = []
            for index in 0..<shard.count {
                if let stamp = index == shard.index ? Self.stamp(descriptor) : held(index) { stamps.append(stamp) }
            }
            if stamps.count == shard.count, let latest = stamps.max() {
                let start = latest + marginMillis
                return (start + 999) / 1000 * 1000
            }
            guard Date() < deadline else {
                throw CommandFailure(
                    "--shard auto/\(shard.count): only \(stamps.count) of \(shard.count) shards were claimed within "
                        + "\(patienceSeconds) s; start as many replicas as the count, or give --start-at")
            }
            usleep(200_000)
        }
    }

    /// The claim time of index `index` while another process holds it; nil while it is free.
    private func held(_ index: Int) -> Int64? {
        let descriptor = open(Self.path(folder, index, of: shard.count), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // A shared lock is granted only while no process holds the claim.
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return nil
        }
        return Self.stamp(descriptor)
    }

    /// The Unix ms a claim file holds; nil while it is being written.
    private static func stamp(_ descriptor: Int32) -> Int64? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &bytes, bytes.count, 0)
        guard count > 1, bytes[count - 1] == UInt8(ascii: "\n") else { return nil }
        return Int64(String(decoding: bytes[..<(count - 1)], as: UTF8.self))
    }
}
