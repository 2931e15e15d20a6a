extension Double {
    /// To `places` decimal places, halves away from zero: the one rounding of a figure to a
    /// precision, from a fix's accuracy to a report's milliseconds (`Rounding` names each unit's).
    public func rounded(places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
