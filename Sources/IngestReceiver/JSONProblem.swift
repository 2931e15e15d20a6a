/// Why a body is not JSON the receiver will read: the byte offset and what is wrong there.
struct JSONProblem: Error, Sendable, Hashable, CustomStringConvertible {
    var offset: Int
    var reason: String

    var description: String { "\(reason) (at byte \(offset))" }
}
