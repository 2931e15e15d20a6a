import Foundation

/// A file's permission bits, as the tests of private files hold them.
package enum FileMode {
    /// The permission bits of `path` (stat), or nil when it does not exist.
    package static func of(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }
}
