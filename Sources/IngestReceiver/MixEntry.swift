/// One share of a status mix: this outcome for this percentage of uploads.
public struct MixEntry: Sendable, Hashable {
    /// What those uploads get.
    public var outcome: ScriptedOutcome
    /// Their share, 0...100.
    public var percent: Double

    /// An entry answering `percent` of uploads with `outcome`.
    public init(_ outcome: ScriptedOutcome, percent: Double) {
        self.outcome = outcome
        self.percent = percent
    }
}
