import ArgumentParser
import FleetDescription

/// `--threshold EXPR` as `run`, `verify` and `report compare` read it: a threshold, or the
/// reason it is not one as a usage error.
enum ThresholdFlag {
    static func read(_ text: String) throws -> Threshold {
        do throws(ThresholdProblem) {
            return try Threshold.read(text)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
