import Yams

extension FleetFileReader {
    /// A group's `flapping:`: `{meanOnline: 20m, meanOffline: 45s, handover: 0.25}`, each key
    /// optional (`Flapping.standard`'s number when left out). Nil after a problem (each reported).
    mutating func readFlapping(_ node: Node) -> Flapping? {
        guard let map = mapping(node, "flapping") else { return nil }
        checkKeys(map, ["meanOnline", "meanOffline", "handover"], in: "flapping")
        let before = problems.count
        var spec = FlappingSpec()
        spec.meanOnlineMillis = map["meanOnline"].flatMap { millis($0, "flapping.meanOnline", Flapping.meanRange) }
        spec.meanOfflineMillis = map["meanOffline"].flatMap {
            millis($0, "flapping.meanOffline", Flapping.meanRange)
        }
        spec.handover = map["handover"].flatMap { number($0, "flapping.handover", Flapping.handoverRange) }
        guard problems.count == before else { return nil }
        return spec.isGroupDefault ? .standard : spec.resolved(over: nil)
    }
}
