import Yams

extension FleetFileReader {
    /// A group's `oemKills:`: `vendor` (each phone at its maker's rate) or `{perDay: 2}`. Nil
    /// after a problem (reported).
    mutating func readOEMKills(_ node: Node) -> OEMKills? {
        if let text = node.scalar?.string, node.mapping == nil {
            guard text == "vendor" else {
                report(
                    node, "`oemKills` \"\(text)\" is not a rate",
                    expected: "`vendor` (each phone at its maker's rate) or `{perDay: 2}` (0 to 24 per day)")
                problems[problems.count - 1].field = "oemKills"
                return nil
            }
            return .vendor
        }
        guard let map = mapping(node, "oemKills") else { return nil }
        checkKeys(map, ["perDay"], in: "oemKills")
        guard let rateNode = map["perDay"] else {
            report(node, "`oemKills` has no `perDay`", expected: "kills per virtual day, 0 to 24, e.g. `{perDay: 2}`")
            problems[problems.count - 1].field = "oemKills.perDay"
            return nil
        }
        return number(rateNode, "oemKills.perDay", OEMKills.perDayRange).map { .perDay($0) }
    }
}

extension FleetFileReader {
    /// A group's `doze:`: `{after: 30m, window: 5m}`, each key optional (AOSP's when left out).
    /// Nil after a problem (each reported).
    mutating func readDoze(_ node: Node) -> Doze? {
        guard let map = mapping(node, "doze") else { return nil }
        checkKeys(map, ["after", "window"], in: "doze")
        let before = problems.count
        var doze = Doze.aosp
        if let after = map["after"].flatMap({ millis($0, "doze.after", Doze.afterRange) }) { doze.afterMillis = after }
        if let window = map["window"].flatMap({ millis($0, "doze.window", Doze.windowRange) }) {
            doze.windowMillis = window
        }
        guard problems.count == before else { return nil }
        return doze
    }
}
