/// Work per CPU-second, side by side.
enum PerCPU {
    /// How many times more `count` per CPU-second `cpu` is than `otherCount` per `otherCPU`:
    /// (count / cpu) ÷ (otherCount / otherCPU). Nil when either side did nothing or used no CPU
    /// (a ratio of nothing says nothing).
    static func ratio(_ count: Int, cpu: Double, over otherCount: Int, otherCPU: Double) -> Double? {
        guard count > 0, cpu > 0, otherCount > 0, otherCPU > 0 else { return nil }
        return (Double(count) / cpu) / (Double(otherCount) / otherCPU)
    }
}
