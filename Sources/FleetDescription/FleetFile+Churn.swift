import Yams

extension FleetFileReader {
    /// A group's `churn:`: `{reinstallsPerDay: 0.01, upgrade: {sdkVersion: "0.2.0", at: 2h, over: 1h}}`,
    /// each key optional. Nil after a problem (each reported).
    mutating func readChurn(_ node: Node) -> Churn? {
        guard let map = mapping(node, "churn") else { return nil }
        checkKeys(map, ["reinstallsPerDay", "upgrade"], in: "churn")
        let before = problems.count
        var churn = Churn()
        if let rateNode = map["reinstallsPerDay"],
            let rate = number(rateNode, "churn.reinstallsPerDay", Churn.reinstallsPerDayRange)
        {
            churn.reinstallsPerDay = rate
        }
        if let upgradeNode = map["upgrade"], let upgradeMap = mapping(upgradeNode, "churn.upgrade") {
            checkKeys(upgradeMap, ["sdkVersion", "at", "over"], in: "churn.upgrade")
            var sdkVersion: String?
            if let versionNode = upgradeMap["sdkVersion"] {
                sdkVersion = version(versionNode, "churn.upgrade.sdkVersion")
            } else {
                report(
                    upgradeNode, "`churn.upgrade` has no `sdkVersion`",
                    expected: "the SDK version the app is updated to, e.g. `sdkVersion: \"0.2.0\"`")
                problems[problems.count - 1].field = "churn.upgrade.sdkVersion"
            }
            let at = upgradeMap["at"].flatMap { duration($0, "churn.upgrade.at") } ?? 0
            let over = upgradeMap["over"].flatMap { duration($0, "churn.upgrade.over") } ?? 0
            if let sdkVersion {
                churn.upgrade = Churn.Upgrade(sdkVersion: sdkVersion, atMillis: at, overMillis: over)
            }
        }
        guard problems.count == before else { return nil }
        return churn
    }
}
