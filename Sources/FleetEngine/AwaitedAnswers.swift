import BeekonDevice

/// The transfers a device has out, and the answer its events wait for.
package struct AwaitedAnswers {
    /// The transfers it has out, by number (see `FleetLoop.transfers`).
    var transfersOut: [Int] = []
    /// When it last heard a transfer's end, virtual ms: its connection has been idle since,
    /// unless a transfer is out.
    var lastEndedAt: Int64?
    /// The batch whose answer the device is hearing from a captive portal, while it hears it.
    var portalAnswered: UUIDv7?
    /// Modelled timing: the earliest answer instant of its transfers whose real answer is not in
    /// yet. Its own events wait there (`FleetLoop.runDue`); nil when nothing is awaited.
    package var answerHold: Int64?
}
