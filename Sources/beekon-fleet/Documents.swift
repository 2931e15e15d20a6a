import FleetCommandLine
import Foundation

/// Writes `text` to `path` beside it and renames it over, so a failure leaves the old file whole
/// (and a file may be rewritten from itself).
func replaceFile(_ path: String, with text: String) throws {
    let temporary = path + ".partial"
    do {
        try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
    } catch {
        throw CommandFailure("cannot write \(temporary): \(error.localizedDescription)")
    }
    guard rename(temporary, path) == 0 else {
        let reason = String(cString: strerror(errno))
        unlink(temporary)
        throw CommandFailure("cannot replace \(path): \(reason)")
    }
}
