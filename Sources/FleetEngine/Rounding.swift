/// How far each unit's figures are rounded wherever they are shown (the API, the report, its CSV
/// and HTML, thresholds' texts): one place per unit, so two surfaces never disagree.
public enum Rounding {
    /// Milliseconds, to the microsecond.
    public static func millis(_ value: Double) -> Double { value.rounded(places: 3) }

    /// Seconds, to the tenth.
    public static func seconds(_ value: Double) -> Double { value.rounded(places: 1) }

    /// A warp (virtual seconds per real second), to the hundredth.
    public static func warp(_ value: Double) -> Double { value.rounded(places: 2) }

    /// A share of a whole (0 to 1), or a count per second over a run, to the ten-thousandth.
    public static func ratio(_ value: Double) -> Double { value.rounded(places: 4) }

    /// A live rate (a count per second of recent real time), to the hundredth.
    public static func perSecond(_ value: Double) -> Double { value.rounded(places: 2) }
}
