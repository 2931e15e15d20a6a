import BeekonDevice

/// An upload or token refresh from the moment the device sends it until the device hears how it
/// ended, by transfer number. The SDK's timeout, injected latency and injected timeouts all
/// count virtual time: the device hears the server's answer when it arrives (plus any injected
/// latency), or `timeout` at `deadline`, whichever is first. The real request's own libcurl
/// timeout only bounds how long a socket is kept; it never decides what the device hears.
struct TransferInFlight {
    var slot: Int
    package var kind: TransferKind
    /// When the device sent it, virtual Unix ms.
    package var sentAt: Int64
    /// When the SDK gives up on it (`sentAt` + the SDK's timeout), virtual Unix ms.
    var deadline: Int64
    /// The batch's fix ids, in payload order (none for a refresh): what the device is told of
    /// them is recorded in its store (`ToldBatch`).
    var fixIDs: [UUIDv7]
    /// Fixes in the batch (0 for a refresh).
    var fixes: Int { fixIDs.count }
    /// A `timeouts` fault chose it: whatever the server answers, the device hears `timeout`.
    var hangs: Bool
    /// The `latency` fault's delay in effect when it was sent, and the time its modelled network
    /// took (`LinkDraw`), added to its answer: the device's time, never the server's.
    var injectedLatencyMillis: Int64
    /// The real server's answer time, wall ms, once it answered (nil until then, or if it
    /// never did).
    package var serverMillis: Double?
    /// The server's answer and its label, held while injected latency runs.
    var held: (outcome: HTTPOutcome, label: TransferOutcome)?
    /// The real request has ended (answered or failed), whether or not the device heard it.
    var realEnded = false
    /// The server's status, once it answered (whether or not the device hears it).
    var answeredStatus: Int?
    /// Its device's process when it was sent (`DeviceSlot.life`).
    var life: Int
    /// When the device hears the answer, virtual Unix ms: set at send with modelled timing, at the
    /// answer's arrival with injected latency; nil when the timeout answers instead (a `timeouts`
    /// fault, latency past the deadline, no real answer).
    var answerAt: Int64?

    /// Sent while the fleet stood still (paused): the request, given to the driver when it goes on.
    var unsent: OutgoingTransfer?
    var waitsForResume: Bool { unsent != nil }
    /// The driver holds it behind the fleet's connection cap: not on the wire yet.
    var heldBack = false
    /// How long it waited behind the cap before it went on the wire, real ms (0: never held).
    var heldBackMillis = 0.0

    /// Its device's modelled network failed it (`LinkDraw`), and its device hears the failure
    /// (`held`) at `answerAt`: a failed lookup or handshake never goes on the wire; a reset does
    /// (`cutOnWire`), cut mid-body, so no answer to it counts.
    var linkFailed = false
    /// A reset that goes on the wire and is cut there (`OutboundRequest.abortAfterBytes`).
    var cutOnWire = false

    /// Its device stopped waiting for it before it reached the wire (the cap held it, the fleet
    /// stood still, or its modelled network failed it), or the server can have no whole request
    /// of it (a reset cut it): no answer will come.
    var neverOnWire: Bool { heldBack || waitsForResume || linkFailed }

    /// Modelled timing: the answer instant while its real answer is not in yet (what the clock,
    /// or the device with lookahead, must not reach before it is); nil otherwise.
    var awaitedAnswerAt: Int64? { held == nil || (cutOnWire && !realEnded) ? answerAt : nil }
}
