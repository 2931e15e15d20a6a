import BeekonDevice

/// What the recognizer says at an instant: the activity it reports and how sure it is.
public struct ActivityReading: Sendable, Hashable {
    /// The activity reported on fixes.
    public var activity: Activity
    /// 0–100, as Android's `DetectedActivity.getConfidence()`.
    public var confidence: Int

    /// The confidence in iOS's steps.
    public var level: ActivityConfidence { ActivityConfidence(percent: confidence) }
}
