import Foundation

/// SIGINT and SIGTERM caught from now on, for a command that waits for Ctrl-C: made before it
/// says it is waiting, so a signal sent as soon as it says so is not missed. The command sets both
/// to SIG_IGN once, first (so they do not end the process): setting a disposition again would
/// take the signal from libdispatch's handler, which it installs once per signal.
final class Interrupts {
    private let received = DispatchSemaphore(value: 0)
    private var sources: [any DispatchSourceSignal] = []

    init() {
        sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [received] in received.signal() }
            source.resume()
            return source
        }
    }

    /// Returns at the first SIGINT or SIGTERM since this was made, and stops catching them.
    func wait() {
        received.wait()
        for source in sources { source.cancel() }
    }
}
