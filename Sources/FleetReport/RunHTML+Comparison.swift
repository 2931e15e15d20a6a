/// `report compare --html`: both runs on one page (being written).
extension RunHTML {
    package static func comparison(_ comparison: RunComparison, chartsScript: String) -> String {
        "<!doctype html><title>compare</title><pre>" + comparison.lines(all: true).joined(separator: "\n") + "</pre>"
    }
}
