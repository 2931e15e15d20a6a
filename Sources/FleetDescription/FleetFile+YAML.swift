import BeekonDevice
import FleetRoutes
import Foundation
import HTTPTypes
import Yams

extension FleetFile {
    /// Reads and validates the fleet file at `path`; every problem is reported, with its line.
    public static func load(path: String) throws(FleetFileProblems) -> FleetFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FleetFileProblems(problems: [
                FleetFileProblem(
                    file: path, line: 0, column: 0, problem: "cannot read the file",
                    expected: "a readable YAML fleet file")
            ])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw FleetFileProblems(problems: [
                FleetFileProblem(
                    file: path, line: 0, column: 0, problem: "the file is not UTF-8 text",
                    expected: "a YAML fleet file in UTF-8")
            ])
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try parse(yaml: text, file: path, routeFolder: folder)
    }

    /// Reads and validates fleet-file YAML; `file` names it in problems. With `routeFolder`,
    /// every route file named is also read (relative paths from that folder) and its problems
    /// reported at the line that names it.
    public static func parse(
        yaml: String, file: String, routeFolder: String? = nil
    ) throws(FleetFileProblems) -> FleetFile {
        var reader = FleetFileReader(file: file, routeFolder: routeFolder)
        let fleet = reader.read(yaml)
        guard reader.problems.isEmpty, let fleet else {
            throw FleetFileProblems(problems: reader.problems.sorted { ($0.line, $0.column) < ($1.line, $1.column) })
        }
        return fleet
    }
}

extension DeviceGroup {
    /// Reads one group written as in a fleet file's `groups` list, from a JSON tree with typed
    /// scalars: the admin API's `spec`.
    public static func read(_ node: Node, file: String = "spec") throws(FleetFileProblems) -> DeviceGroup {
        var reader = FleetFileReader(file: file, routeFolder: nil, jsonTypes: true)
        let group = reader.readGroup(node, ingest: nil)
        guard reader.problems.isEmpty, let group else { throw FleetFileProblems(problems: reader.problems) }
        return group
    }
}

extension FleetAction {
    /// Reads the action `name` with its `params` (a mapping node, nil for none) as a fleet
    /// file's timeline writes them, from a JSON tree with typed scalars (the admin API's body):
    /// the API's actions, read by the timeline's reader.
    public static func read(_ name: Name, params: Node?, file: String = "params") throws(FleetFileProblems)
        -> FleetAction
    {
        var reader = FleetFileReader(file: file, routeFolder: nil, jsonTypes: true)
        let action = reader.readAction(name, params, at: params ?? Node.mapping([:]))
        guard reader.problems.isEmpty, let action else { throw FleetFileProblems(problems: reader.problems) }
        return action
    }
}

/// Walks the YAML tree, collecting every problem rather than stopping at the first.
struct FleetFileReader {
    package let file: String
    /// Where relative route paths start; nil skips reading the route files.
    package let routeFolder: String?
    var problems: [FleetFileProblem] = []
    /// Route files read (by path as written), so a route shared by groups is read once and
    /// the run need not read it again; nil for one that could not be used.
    package private(set) var routes: [String: Route?] = [:]
    /// The tree came from JSON (an admin API body, tagged by type): a string must be a JSON
    /// string and a boolean a JSON boolean, where YAML would read `1` or `yes` as text.
    let jsonTypes: Bool

    package init(file: String, routeFolder: String?, jsonTypes: Bool = false) {
        self.file = file
        self.routeFolder = routeFolder
        self.jsonTypes = jsonTypes
    }

    /// The YAML tree of `yaml`; nil (with the problem reported) when it is empty or malformed.
    package mutating func compose(
        _ yaml: String, whenEmpty: (problem: String, expected: String) = ("the text is empty", "a mapping")
    ) -> Node? {
        do {
            guard let composed = try Yams.compose(yaml: yaml) else {
                report(nil, whenEmpty.problem, expected: whenEmpty.expected)
                return nil
            }
            return composed
        } catch YamlError.duplicatedKeysInMapping(let names, let context) {
            reportDuplicate(names.first ?? "", first: context.mark, in: yaml)
            return nil
        } catch let error as YamlError {
            reportSyntax(error)
            return nil
        } catch {
            report(nil, "\(error)", expected: "valid YAML")
            return nil
        }
    }

    package mutating func read(_ yaml: String) -> FleetFile? {
        guard let root = compose(yaml, whenEmpty: ("the file is empty", "a mapping with `name` and `groups`")) else {
            return nil
        }
        guard let top = mapping(root, "the fleet file") else { return nil }
        checkKeys(
            top,
            [
                "name", "seed", "clock", "duration", "ingest", "network", "groups", "faults", "thresholds", "stages",
                "daily",
            ],
            in: "the fleet file")
        let name = string(top["name"], "name") ?? "fleet"
        let seed = top["seed"].flatMap { integer($0, "seed", FleetFile.seedRange) }.map { UInt64($0) } ?? 1
        var clock = FleetFile.ClockSpec()
        if let clockNode = top["clock"], let clockMap = mapping(clockNode, "clock") {
            checkKeys(clockMap, ["start", "warp", "deterministic", "timing"], in: "clock")
            if let startNode = clockMap["start"], let text = string(startNode, "clock.start"), text != "now" {
                clock.start = instant(startNode, text, "clock.start")
            }
            if let warpNode = clockMap["warp"] {
                if warpNode.scalar?.string.lowercased() == Warp.maxWord {
                    clock.warp = .max
                } else if let warp = number(warpNode, "clock.warp", FleetFile.warpRange, orWords: "`max`") {
                    clock.warp = .rate(warp)
                }
            }
            if let node = clockMap["deterministic"], let deterministic = bool(node, "clock.deterministic") {
                clock.deterministic = deterministic
            }
            if let node = clockMap["timing"], let text = string(node, "clock.timing") {
                if let choice = TimingChoice(rawValue: text) {
                    if clockMap["deterministic"] != nil, clock.deterministic != (choice == .modelled) {
                        report(
                            node, "`clock.timing: \(text)` contradicts `clock.deterministic`",
                            expected: "one of them (`deterministic: true` is `timing: modelled`)")
                    }
                    clock.timing = choice
                } else {
                    report(node, "\"\(text)\" is not a timing", expected: "one of " + TimingChoice.words)
                }
            }
        }
        let durationMillis = top["duration"].flatMap { duration($0, "duration", FleetDuration.readRunLength) }
        let ingest = top["ingest"].flatMap { url($0, "ingest") }
        var groups: [DeviceGroup] = []
        if let groupsNode = top["groups"] {
            if let list = sequence(groupsNode, "groups") {
                if list.isEmpty { report(groupsNode, "no groups", expected: "at least one device group") }
                for item in list {
                    if let group = readGroup(item, ingest: ingest) {
                        if groups.contains(where: { $0.name == group.name }) {
                            report(
                                item["name"] ?? item, "group name \"\(group.name)\" is used twice",
                                expected: "a unique group name")
                        }
                        groups.append(group)
                    }
                }
            }
        } else {
            report(root, "no `groups`", expected: "a list of device groups")
        }
        var faults: [FaultEntry] = []
        if let faultsNode = top["faults"], let list = sequence(faultsNode, "faults") {
            for item in list {
                if let fault = readFault(item, groups: groups) { faults.append(fault) }
            }
        }
        var thresholds: [Threshold] = []
        if let node = top["thresholds"], let list = sequence(node, "thresholds") {
            for item in list {
                // `- EXPR`, or k6's object form `- {threshold: EXPR, abortOnFail: true, delayAbortEval: 1m}`.
                var expressionNode = item
                var abortOnFail = false
                var delay: Int64 = 0
                if let map = item.mapping {
                    checkKeys(map, ["threshold", "abortOnFail", "delayAbortEval"], in: "a threshold")
                    guard let node = map["threshold"] else {
                        report(item, "a threshold with no `threshold:`", expected: "`threshold: METRIC OP VALUE`")
                        continue
                    }
                    expressionNode = node
                    if let node = map["abortOnFail"] { abortOnFail = bool(node, "abortOnFail") ?? false }
                    if let node = map["delayAbortEval"] { delay = duration(node, "delayAbortEval") ?? 0 }
                }
                guard let text = string(expressionNode, "thresholds") else { continue }
                do throws(ThresholdProblem) {
                    var threshold = try Threshold.read(text)
                    threshold.abortOnFail = abortOnFail
                    threshold.delayAbortEvalMillis = delay
                    if let group = threshold.group, !groups.contains(where: { $0.name == group }) {
                        report(
                            item,
                            "`\(threshold.expression)` names group \"\(group)\", which the fleet file does not have",
                            expected: "one of " + groups.map { "\"\($0.name)\"" }.joined(separator: ", "))
                        continue
                    }
                    thresholds.append(threshold)
                } catch {
                    report(expressionNode, "`\(error.expression)` \(error.problem)", expected: error.expected)
                }
            }
        }
        let stages = top["stages"].map { readStages($0, "`stages`") } ?? []
        var file = FleetFile(
            name: name, seed: seed, clock: clock, ingest: ingest, durationMillis: durationMillis, groups: groups,
            faults: faults, routes: self.routes.compactMapValues { $0 }, thresholds: thresholds, stages: stages)
        if let node = top["network"] { file.network = readFleetNetwork(node) }
        if let node = top["daily"] {
            file.daily = readDaily(node, "daily")
            if top["stages"] != nil { refuseDailyWithStages(node, "the fleet file") }
        }
        return file
    }

    /// `network: {sourceAddresses: "127.0.0.2-127.0.0.250", http2: auto, idleCloseSeconds: 300}`.
    mutating func readFleetNetwork(_ node: Node) -> FleetFile.NetworkSpec {
        var network = FleetFile.NetworkSpec()
        guard let map = mapping(node, "network") else { return network }
        checkKeys(map, ["sourceAddresses", "http2", "idleCloseSeconds"], in: "network")
        if let node = map["http2"], let text = string(node, "network.http2") {
            if let choice = FleetFile.HTTP2Choice(rawValue: text) {
                network.http2 = choice
            } else {
                report(node, "\"\(text)\" is not an HTTP/2 choice", expected: FleetFile.HTTP2Choice.words)
            }
        }
        if let node = map["idleCloseSeconds"],
            let seconds = integer(node, "network.idleCloseSeconds", FleetFile.NetworkSpec.idleCloseRange)
        {
            network.idleCloseSeconds = Int(seconds)
        }
        if let node = map["sourceAddresses"], let text = string(node, "network.sourceAddresses") {
            do throws(SourceAddressProblem) {
                network.sourceAddresses = try SourceAddresses(reading: text)
            } catch {
                report(node, "network.sourceAddresses \(error)", expected: SourceAddressProblem.expected)
                problems[problems.count - 1].field = "network.sourceAddresses"
            }
        }
        return network
    }

    // MARK: Groups

    mutating func readGroup(_ node: Node, ingest: String?) -> DeviceGroup? {
        guard let map = mapping(node, "a group") else { return nil }
        checkKeys(
            map,
            [
                "name", "count", "platform", "model", "sdkVersion", "osVersion", "route", "pace", "speedFactor", "loop",
                "dwell",
                "startOffset", "start", "spread", "autoStart", "config", "extras", "geofences", "provider", "stages",
                "network", "flapping", "oemKills", "doze", "standbyBucket", "deviceClock", "churn", "daily", "arrivals",
            ], in: "a group")
        guard let nameNode = map["name"] else {
            report(node, "a group has no `name`", expected: "`name: couriers` or similar")
            return nil
        }
        let given = string(nameNode, "name")
        let name = given ?? ""
        if given?.isEmpty == true {
            report(nameNode, "a group's `name` is empty", expected: "`name: couriers` or similar")
            problems[problems.count - 1].field = "name"
        }
        var count = 0
        if let countNode = map["count"] {
            if let value = integer(countNode, "count", DeviceGroup.countRange) { count = Int(value) }
        } else {
            report(node, "group \"\(name)\" has no `count`", expected: "how many devices, e.g. `count: 50`")
        }
        var platforms: [(platform: Platform, weight: Double)] = [(.android, 1)]
        if let platformNode = map["platform"] {
            if let text = platformNode.scalar?.string {
                if let platform = Platform(rawValue: text) {
                    platforms = [(platform, 1)]
                } else {
                    report(
                        platformNode, "unknown platform \"\(text)\"",
                        expected: "`ios`, `android`, or a mix such as `{ios: 0.6, android: 0.4}`")
                }
            } else if let mix = mapping(platformNode, "platform") {
                var weights: [(platform: Platform, weight: Double)] = []
                for (key, value) in mix {
                    guard let platform = key.string.flatMap(Platform.init(rawValue:)) else {
                        report(key, "unknown platform \"\(key.string ?? "")\"", expected: "`ios` or `android`")
                        continue
                    }
                    if let weight = number(value, "platform.\(platform.rawValue)", DeviceGroup.platformWeightRange) {
                        weights.append((platform, weight))
                    }
                }
                if weights.contains(where: { $0.weight > 0 }) {
                    platforms = weights
                } else {
                    report(
                        platformNode, "the platform mix has no positive share",
                        expected: "at least one platform with a share above 0")
                }
            }
        }
        let models = map["model"].map { stringList($0, "model") } ?? []
        let groupPlatforms = platforms.map(\.platform)
        var sdkVersions = PlatformValues<String>()
        if let node = map["sdkVersion"] {
            // One list may serve both platforms: each bad value is said once.
            var refused: Set<String> = []
            for (platform, texts) in platformTexts(node, "sdkVersion", platforms: groupPlatforms, shared: true) {
                var versions: [String] = []
                for (valueNode, text) in texts {
                    guard ActionParameter.isVersion(text) else {
                        guard refused.insert("\(valueNode.mark.map { "\($0)" } ?? text)").inserted else { continue }
                        report(
                            valueNode, "`sdkVersion` \"\(text)\" is not an SDK version",
                            expected: ActionParameter.versionExpected)
                        continue
                    }
                    versions.append(text)
                }
                sdkVersions.set(versions, for: platform)
            }
        }
        var osVersions = PlatformValues<OSVersion>()
        if let node = map["osVersion"] {
            for (platform, texts) in platformTexts(node, "osVersion", platforms: groupPlatforms, shared: false) {
                osVersions.set(osVersionList(texts, platform: platform), for: platform)
            }
        }
        var routes: [String] = []
        if let routeNode = map["route"] {
            routes = stringList(routeNode, "route")
            if routes.isEmpty { report(routeNode, "no route", expected: "a route file or a list of route files") }
            checkRoutes(routes, at: routeNode)
        } else {
            report(node, "group \"\(name)\" has no `route`", expected: "a route file such as `routes/london-walk.gpx`")
        }
        let factor = map["speedFactor"].flatMap { number($0, "speedFactor", DeviceGroup.speedFactorRange) } ?? 1
        var pace = DeviceGroup.PaceSpec.routeTimes(factor: factor)
        if let paceNode = map["pace"] {
            if let text = paceNode.scalar?.string, let named = Pace(rawValue: text) {
                pace = .pace(named, factor: factor)
            } else if paceNode.scalar?.string == "route" {
                pace = .routeTimes(factor: factor)
            } else if let speed = number(
                paceNode, "pace", DeviceGroup.speedRange, orWords: "`route`, `walk`, `run`, `cycle`, `drive`",
                what: "a pace")
            {
                pace = .metersPerSecond(speed * factor)
            }
        }
        let loops = map["loop"].flatMap { bool($0, "loop") } ?? true
        var dwell: (everyMeters: Double, seconds: Double)?
        if let dwellNode = map["dwell"], let dwellMap = mapping(dwellNode, "dwell") {
            checkKeys(dwellMap, ["every", "for"], in: "dwell")
            let every = dwellMap["every"].flatMap { number($0, "dwell.every", DeviceGroup.dwellEveryRange) }
            let length = dwellMap["for"].flatMap { duration($0, "dwell.for") }
            if let every, let length {
                dwell = (every, Double(length) / 1000)
            } else if dwellMap["every"] == nil || dwellMap["for"] == nil {
                report(
                    dwellNode, "dwell needs both `every` (metres) and `for` (a duration)",
                    expected: "e.g. `dwell: {every: 800, for: 2m}`")
            }
        }
        var startOffset = DeviceGroup.StartOffset.fraction(0)
        if let offsetNode = map["startOffset"] {
            if offsetNode.scalar?.string == "random" {
                startOffset = .random
            } else if let value = number(
                offsetNode, "startOffset", DeviceGroup.startOffsetRange, orWords: "`random`", what: "a start offset")
            {
                startOffset = .fraction(value)
            }
        }
        let start = map["start"].flatMap { duration($0, "start") } ?? 0
        let spread = map["spread"].flatMap { duration($0, "spread") } ?? 0
        let autoStart = map["autoStart"].flatMap { bool($0, "autoStart") } ?? true
        // No config block: the SDK's defaults, uploading to the run's ingest, as a block without
        // `sync` does (docs/fleet-file.md); `sync: false` in a block is how a group stays local-only.
        var config = BeekonConfig()
        config.sync = SyncConfig(url: ingest ?? "")
        if let configNode = map["config"] { config = readConfig(configNode, ingest: ingest) ?? config }
        let extras = map["extras"].flatMap { stringMap($0, "extras") } ?? [:]
        let geofences = map["geofences"].map { readGeofences($0) } ?? []
        var provider = ProviderProfile()
        if let providerNode = map["provider"], let providerMap = mapping(providerNode, "provider") {
            checkKeys(providerMap, ["gapsPerHour", "outlierProbability", "mock"], in: "provider")
            if let node = providerMap["gapsPerHour"],
                let value = number(node, "provider.gapsPerHour", ProviderProfile.gapsPerHourRange)
            {
                provider.gapsPerHour = value
            }
            if let node = providerMap["outlierProbability"],
                let value = number(node, "provider.outlierProbability", ProviderProfile.outlierProbabilityRange)
            {
                provider.outlierProbability = value
            }
            if let node = providerMap["mock"], let value = bool(node, "provider.mock") { provider.isMock = value }
        }
        let stages = map["stages"].map { readStages($0, "stages of group \"\(name)\"") }
        let network = map["network"].flatMap { readNetwork($0) }
        let deviceClock = map["deviceClock"].flatMap { readDeviceClock($0) }
        let churn = map["churn"].flatMap { readChurn($0) }
        var group = DeviceGroup(
            name: name, count: count, platforms: platforms, models: models, sdkVersions: sdkVersions,
            osVersions: osVersions, routes: routes,
            pace: pace, loops: loops, dwell: dwell, startOffset: startOffset, startAfterMillis: start,
            spreadMillis: spread, autoStart: autoStart, config: config, extras: extras, geofences: geofences,
            provider: provider, stages: stages, network: network, churn: churn)
        group.deviceClock = deviceClock
        group.flapping = map["flapping"].flatMap { readFlapping($0) }
        group.oemKills = map["oemKills"].flatMap { readOEMKills($0) }
        group.doze = map["doze"].flatMap { readDoze($0) }
        if let node = map["standbyBucket"],
            let bucket = choice(node, "standbyBucket", StandbyBucket.words).flatMap(StandbyBucket.init(rawValue:))
        {
            group.standbyBucket = bucket
        }
        if let node = map["daily"] {
            group.daily = readDaily(node, "daily")
            if map["stages"] != nil { refuseDailyWithStages(node, "group \"\(name)\"") }
        }
        if let node = map["arrivals"] {
            group.arrivals = readArrivals(node)
            // Its new places would fall among those the shape stops and starts again, which a
            // shard could no longer count as the whole fleet does.
            if map["stages"] != nil || map["daily"] != nil {
                report(
                    node, "group \"\(name)\" gives `arrivals` with `\(map["stages"] != nil ? "stages" : "daily")`",
                    expected: "arrivals in a group of their own: its count runs, and new installs join it")
                problems[problems.count - 1].field = "arrivals"
            }
        }
        return group
    }

    /// `daily: {utcOffset: "+01:00", hours: [24 shares from 0 to 1]}`: see `DailyCurve`.
    mutating func readDaily(_ node: Node, _ field: String) -> DailyCurve? {
        guard let map = mapping(node, field) else { return nil }
        checkKeys(map, ["utcOffset", "hours"], in: field)
        var curve = DailyCurve(shares: [])
        var valid = true
        if let offsetNode = map["utcOffset"] {
            if let offset = duration(
                offsetNode, "\(field).utcOffset", DailyCurve.readUTCOffset, what: "a UTC offset")
            {
                curve.utcOffsetMillis = offset
            } else {
                valid = false
            }
        }
        let expected = "24 shares from 0 to 1, one for each local hour from midnight"
        guard let hoursNode = map["hours"] else {
            report(node, "`\(field)` has no `hours`", expected: expected)
            problems[problems.count - 1].field = "\(field).hours"
            return nil
        }
        guard let list = sequence(hoursNode, "\(field).hours") else { return nil }
        guard list.count == DailyCurve.hoursInDay else {
            report(hoursNode, "`\(field).hours` has \(list.count) entries", expected: expected)
            problems[problems.count - 1].field = "\(field).hours"
            return nil
        }
        for (hour, item) in list.enumerated() {
            if let share = number(item, "\(field).hours[\(hour)]", DailyCurve.shareRange) {
                curve.shares.append(share)
            } else {
                valid = false
            }
        }
        return valid ? curve : nil
    }

    /// `daily:` and `stages:` on one level: each says how many devices run, so one is refused.
    private mutating func refuseDailyWithStages(_ node: Node, _ level: String) {
        report(
            node, "\(level) gives both `daily` and `stages`",
            expected: "one of them: `daily` repeats a day of load, `stages` set it once")
        problems[problems.count - 1].field = "daily"
    }

    /// `arrivals: {perHour: 120, until: 6h}`: see `Arrivals`.
    mutating func readArrivals(_ node: Node) -> Arrivals? {
        guard let map = mapping(node, "arrivals") else { return nil }
        checkKeys(map, ["perHour", "until"], in: "arrivals")
        guard let perHourNode = map["perHour"] else {
            report(node, "`arrivals` has no `perHour`", expected: "new installs an hour, e.g. `perHour: 120`")
            problems[problems.count - 1].field = "arrivals.perHour"
            return nil
        }
        guard let perHour = number(perHourNode, "arrivals.perHour", Arrivals.perHourRange) else { return nil }
        var arrivals = Arrivals(perHour: perHour)
        if let untilNode = map["until"] {
            guard let until = duration(untilNode, "arrivals.until") else { return nil }
            arrivals.untilMillis = until
        }
        return arrivals
    }

    /// `deviceClock: {offset: 0s, spread: 2m, driftPpm: 50, ntp: {every: 6h}}`: every part
    /// optional (an exact clock, no NTP, when left out); see `DeviceClockSpec`.
    mutating func readDeviceClock(_ node: Node) -> DeviceClockSpec? {
        guard let map = mapping(node, "deviceClock") else { return nil }
        checkKeys(map, ["offset", "spread", "driftPpm", "ntp"], in: "deviceClock")
        var spec = DeviceClockSpec()
        if let node = map["offset"] {
            spec.offsetMillis = duration(node, "deviceClock.offset", DeviceClockSpec.readOffset) ?? 0
        }
        if let node = map["spread"] {
            spec.spreadMillis = duration(node, "deviceClock.spread", DeviceClockSpec.readSpread) ?? 0
        }
        if let node = map["driftPpm"] {
            spec.driftPpm = number(node, "deviceClock.driftPpm", DeviceClockSpec.driftRange) ?? 0
        }
        if let ntpNode = map["ntp"], let ntpMap = mapping(ntpNode, "deviceClock.ntp") {
            checkKeys(ntpMap, ["every"], in: "deviceClock.ntp")
            if let everyNode = ntpMap["every"] {
                spec.ntpEveryMillis = duration(everyNode, "deviceClock.ntp.every", DeviceClockSpec.readNTPEvery)
            } else {
                report(ntpNode, "`deviceClock.ntp` has no `every`", expected: "e.g. `ntp: {every: 6h}`")
            }
        }
        return spec
    }

    /// `stages:`: a list of `{for: DURATION, devices: N}`, at least one.
    mutating func readStages(_ node: Node, _ what: String) -> [Stage] {
        guard let list = sequence(node, "stages") else { return [] }
        if list.isEmpty { report(node, "\(what) has no stage", expected: "`- {for: 10m, devices: 100}` entries") }
        var stages: [Stage] = []
        for item in list {
            guard let map = mapping(item, "a stage") else { continue }
            checkKeys(map, ["for", "devices"], in: "a stage")
            guard let forNode = map["for"], let devicesNode = map["devices"] else {
                report(item, "a stage needs `for` and `devices`", expected: "`{for: 10m, devices: 100}`")
                continue
            }
            guard let length = duration(forNode, "for"),
                let devices = integer(devicesNode, "devices", Stage.devicesRange)
            else { continue }
            stages.append(Stage(durationMillis: length, devices: Int(devices)))
        }
        return stages
    }

    mutating func readConfig(_ node: Node, ingest: String?) -> BeekonConfig? {
        guard let map = mapping(node, "config") else { return nil }
        checkKeys(
            map,
            [
                "preset", "minTimeBetweenLocationsSeconds", "minDistanceBetweenLocationsMeters", "whenStationary",
                "stationaryRadiusMeters", "detectActivity", "sync",
            ], in: "config")
        var config = BeekonConfig()
        if let node = map["preset"] { config.preset = enumValue(node, "preset", Preset.self) ?? config.preset }
        if let node = map["minTimeBetweenLocationsSeconds"] {
            config.minTimeBetweenLocationsSeconds = number(
                node, "minTimeBetweenLocationsSeconds", BeekonConfig.minTimeRange)
        }
        if let node = map["minDistanceBetweenLocationsMeters"] {
            config.minDistanceBetweenLocationsMeters = number(
                node, "minDistanceBetweenLocationsMeters", BeekonConfig.minDistanceRange)
        }
        if let node = map["whenStationary"] {
            config.whenStationary = enumValue(node, "whenStationary", StationaryMode.self) ?? config.whenStationary
        }
        if let node = map["stationaryRadiusMeters"],
            let value = number(node, "stationaryRadiusMeters", BeekonConfig.stationaryRadiusRange)
        {
            config.stationaryRadiusMeters = value
        }
        if let node = map["detectActivity"] { config.detectActivity = bool(node, "detectActivity") ?? false }
        if let syncNode = map["sync"] {
            // A JSON body's null arrives tagged, not as YAML's plain `null`.
            if syncNode.bool == false || syncNode.null != nil || syncNode.tag.rawValue == Tag.Name.null.rawValue {
                config.sync = nil
            } else {
                config.sync = readSync(syncNode, ingest: ingest)
            }
        } else {
            // No sync block: upload to the run's ingest ("" until the run resolves it).
            config.sync = SyncConfig(url: ingest ?? "")
        }
        return config
    }

    private mutating func readSync(_ node: Node, ingest: String?) -> SyncConfig? {
        guard let map = mapping(node, "sync") else { return nil }
        checkKeys(map, ["url", "headers", "intervalSeconds", "batchSize", "syncThreshold", "auth"], in: "sync")
        let urlText = map["url"].flatMap { url($0, "sync.url") } ?? ingest ?? ""
        var sync = SyncConfig(url: urlText)
        if let node = map["headers"] { sync.headers = headerMap(node, "sync.headers") ?? [:] }
        if let node = map["intervalSeconds"],
            let value = integer(node, "sync.intervalSeconds", SyncConfig.intervalRange)
        {
            sync.intervalSeconds = Int(value)
        }
        if let node = map["batchSize"], let value = integer(node, "sync.batchSize", SyncConfig.batchSizeRange) {
            sync.batchSize = Int(value)
        }
        if let node = map["syncThreshold"],
            let value = integer(node, "sync.syncThreshold", SyncConfig.syncThresholdRange)
        {
            sync.syncThreshold = Int(value)
        }
        if let authNode = map["auth"], let authMap = mapping(authNode, "sync.auth") {
            checkKeys(
                authMap,
                [
                    "accessToken", "refreshToken", "expiresAt", "strategy", "refreshUrl", "refreshPayload",
                    "refreshHeaders",
                    "refreshBodyFormat", "responseMapping", "skewMarginSeconds",
                ], in: "sync.auth")
            var auth = AuthConfig()
            auth.accessToken = authMap["accessToken"].flatMap { string($0, "auth.accessToken") }
            auth.refreshToken = authMap["refreshToken"].flatMap { string($0, "auth.refreshToken") }
            auth.expiresAt = authMap["expiresAt"].flatMap { number($0, "auth.expiresAt", AuthConfig.expiresAtRange) }
            if let node = authMap["strategy"] {
                auth.strategy = enumValue(node, "auth.strategy", AuthStrategy.self) ?? .bearer
            }
            auth.refreshURL = authMap["refreshUrl"].flatMap { url($0, "auth.refreshUrl") }
            if let node = authMap["refreshPayload"] {
                auth.refreshPayload = stringMap(node, "auth.refreshPayload") ?? [:]
            }
            if let node = authMap["refreshHeaders"] {
                auth.refreshHeaders = headerMap(node, "auth.refreshHeaders") ?? auth.refreshHeaders
            }
            if let node = authMap["refreshBodyFormat"] {
                auth.refreshBodyFormat = enumValue(node, "auth.refreshBodyFormat", AuthBodyFormat.self) ?? .form
            }
            if let node = authMap["responseMapping"], let mappingMap = mapping(node, "auth.responseMapping") {
                checkKeys(
                    mappingMap, ["accessToken", "refreshToken", "expiresAt", "expiresIn"], in: "auth.responseMapping")
                auth.responseMapping = ResponseMapping(
                    accessToken: mappingMap["accessToken"].flatMap { string($0, "responseMapping.accessToken") },
                    refreshToken: mappingMap["refreshToken"].flatMap { string($0, "responseMapping.refreshToken") },
                    expiresAt: mappingMap["expiresAt"].flatMap { string($0, "responseMapping.expiresAt") },
                    expiresIn: mappingMap["expiresIn"].flatMap { string($0, "responseMapping.expiresIn") })
            }
            if let node = authMap["skewMarginSeconds"] {
                auth.skewMarginSeconds = number(node, "auth.skewMarginSeconds", AuthConfig.skewMarginRange) ?? 60
            }
            sync.auth = auth
        }
        return sync
    }

    private mutating func readGeofences(_ node: Node) -> [Geofence] {
        guard let list = sequence(node, "geofences") else { return [] }
        var geofences: [Geofence] = []
        for item in list {
            guard let map = mapping(item, "a geofence") else { continue }
            checkKeys(map, ["id", "latitude", "longitude", "radius"], in: "a geofence")
            guard let idNode = map["id"], let latitudeNode = map["latitude"], let longitudeNode = map["longitude"],
                let radiusNode = map["radius"]
            else {
                report(
                    item, "a geofence needs `id`, `latitude`, `longitude` and `radius`",
                    expected: "e.g. `{id: depot, latitude: 51.5, longitude: -0.12, radius: 150}`")
                continue
            }
            let id = string(idNode, "geofence.id")
            let latitude = number(latitudeNode, "geofence.latitude", Geofence.latitudeRange)
            let longitude = number(longitudeNode, "geofence.longitude", Geofence.longitudeRange)
            let radius = number(radiusNode, "geofence.radius", Geofence.radiusRange)
            guard let id, let latitude, let longitude, let radius else { continue }
            let geofence = Geofence(id: id, latitude: latitude, longitude: longitude, radiusMeters: radius)
            if let reason = GeofenceMonitor.problem(with: geofence) {
                report(item, "geofence \"\(id)\": \(reason.rawValue)", expected: "a geofence the SDK accepts")
                continue
            }
            geofences.append(geofence)
        }
        return geofences
    }

    /// Reads each route file once and reports its problems at the line that names it.
    private mutating func checkRoutes(_ routes: [String], at node: Node) {
        guard let routeFolder else { return }
        let entries = node.sequence.map(Array.init) ?? [node]
        for (index, route) in routes.enumerated() where self.routes[route] == nil {
            do throws(RouteError) {
                self.routes[route] = try Route.load(path: Route.resolvedPath(route, folder: routeFolder))
            } catch {
                self.routes[route] = .some(nil)
                report(
                    index < entries.count ? entries[index] : node, "route \"\(route)\" cannot be used: \(error)",
                    expected: "")
            }
        }
    }

    // MARK: Faults

    private mutating func readFault(_ node: Node, groups: [DeviceGroup]) -> FaultEntry? {
        guard let map = mapping(node, "a fault") else { return nil }
        checkKeys(map, ["at", "for", "select", "action", "params"], in: "a fault")
        guard let atNode = map["at"], let at = duration(atNode, "at") else {
            if map["at"] == nil {
                report(node, "a fault has no `at`", expected: "when, after the start, e.g. `at: 10m`")
            }
            return nil
        }
        guard let actionNode = map["action"] else {
            report(node, "a fault has no `action`", expected: FleetAction.Name.oneOf)
            return nil
        }
        guard let name = actionNode.string.flatMap(FleetAction.Name.init(rawValue:)) else {
            let typed = actionNode.string ?? ""
            report(
                actionNode,
                "unknown action \"\(typed)\""
                    + NameSuggestion.hint(for: typed, among: FleetAction.Name.allCases.map(\.rawValue)),
                expected: FleetAction.Name.oneOf)
            return nil
        }
        var forMillis: Int64?
        if let forNode = map["for"] {
            forMillis = duration(forNode, "for")
            if !name.details.lasts {
                let lasting = FleetAction.Name.allCases.filter(\.details.lasts).map(\.rawValue)
                report(
                    forNode, "`\(name.rawValue)` does not last, so `for` means nothing here",
                    expected: "`for` only with \(lasting.sorted().joined(separator: ", "))")
            }
        }
        var selector = FaultSelector.all
        if let selectNode = map["select"] {
            if selectNode.string == "all" {
                selector = .all
            } else if let selectMap = mapping(selectNode, "select") {
                checkKeys(selectMap, ["group", "fraction", "seed", "ids", "state"], in: "select")
                if let groupNode = selectMap["group"], let group = string(groupNode, "select.group") {
                    if !groups.contains(where: { $0.name == group }) {
                        report(
                            groupNode, "no group is named \"\(group)\"",
                            expected:
                                "one of the file's groups: \(Set(groups.map(\.name)).sorted().joined(separator: ", "))")
                    }
                    selector = .group(group)
                } else if let fractionNode = selectMap["fraction"] {
                    let seed = selectMap["seed"].flatMap { integer($0, "select.seed", FleetFile.seedRange) }
                    if let fraction = number(fractionNode, "select.fraction", FaultSelector.fractionRange) {
                        selector = .fraction(fraction, seed: seed.map { UInt64($0) })
                    }
                } else if let idsNode = selectMap["ids"] {
                    selector = .ids(stringList(idsNode, "select.ids"))
                } else if let stateNode = selectMap["state"], let state = string(stateNode, "select.state") {
                    selector = .state(state)
                } else {
                    report(
                        selectNode, "an empty selector",
                        expected: "`all`, `{group: NAME}`, `{fraction: 0.2}`, `{ids: [...]}` or `{state: paused*}`")
                }
                if selectMap["seed"] != nil, selectMap["fraction"] == nil {
                    report(selectNode, "`seed` goes with `fraction` only", expected: "`{fraction: 0.2, seed: 7}`")
                }
            }
        }
        guard let action = readAction(name, map["params"], at: node) else { return nil }
        return FaultEntry(
            atMillis: at, forMillis: forMillis, selector: selector, action: action, line: node.mark?.line ?? 0)
    }

    /// The action `name` with its `params` (a mapping, or absent), each read as its description
    /// says; `node` is where to report a missing one. Nil after a problem.
    mutating func readAction(_ name: FleetAction.Name, _ paramsNode: Node?, at node: Node) -> FleetAction? {
        let parameters = name.details.parameters
        let paramsMap = paramsNode.flatMap { mapping($0, "params") }
        if let paramsMap {
            checkKeys(paramsMap, Set(parameters.map(\.name)), in: "params")
        }
        let before = problems.count
        var values: [String: ActionParameter.Value] = [:]
        for parameter in parameters {
            let field = "params.\(parameter.name)"
            guard let valueNode = paramsMap?[parameter.name] else {
                if parameter.required {
                    report(
                        node, "`\(name.rawValue)` needs `\(field)`",
                        expected: "\(parameter.summary), e.g. `params: {\(parameter.name): \(parameter.example)}`")
                    problems[problems.count - 1].field = field
                }
                continue
            }
            let value: ActionParameter.Value?
            switch parameter.kind {
            case .millis(let range): value = millis(valueNode, field, range).map { .millis($0) }
            case .number(let range): value = number(valueNode, field, range).map { .number($0) }
            case .seconds(let range):
                value = number(valueNode, field, range).map { .millis(Int64(($0 * 1000).rounded())) }
            case .config: value = readConfig(valueNode, ingest: nil).map { .config($0) }
            case .stringMap: value = stringMap(valueNode, field).map { .stringMap($0) }
            case .geofences: value = .geofences(readGeofences(valueNode))
            case .strings: value = .strings(stringList(valueNode, field))
            case .choice(let words): value = choice(valueNode, field, words).map { .choice($0) }
            case .instant: value = actionInstant(valueNode, field).map { .instant($0) }
            case .latency:
                value = readLatency(valueNode, field).map { .latency(medianMillis: $0.median, tailMillis: $0.tail) }
            case .version: value = version(valueNode, field).map { .version($0) }
            }
            values[parameter.name] = value
        }
        guard problems.count == before else { return nil }
        return FleetAction(name, values)
    }

    // MARK: Scalars

    package mutating func report(_ node: Node?, _ problem: String, expected: String) {
        problems.append(
            FleetFileProblem(
                file: file, line: node?.mark?.line ?? 0, column: node?.mark?.column ?? 0, problem: problem,
                expected: expected))
    }

    /// Reports a key given twice in one mapping at its second place (YAML readers differ on
    /// which value wins, so neither does). Yams marks only the first: the second is the next
    /// place after it where the same key starts an entry of a mapping.
    private mutating func reportDuplicate(_ name: String, first: Mark, in yaml: String) {
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
        let key = Array(name)
        var line = first.line - 1
        var column = first.column - 1 + key.count
        while line >= 0, line < lines.count {
            let text = lines[line]
            while column < text.count {
                let before = column == 0 ? " " : text[column - 1]
                var end = column
                if text[column] == "\"" || text[column] == "'" { end += 1 }
                if " \t{,\"'".contains(before), text.count >= end + key.count, Array(text[end..<end + key.count]) == key
                {
                    var after = end + key.count
                    if after < text.count, text[after] == "\"" || text[after] == "'" { after += 1 }
                    while after < text.count, text[after] == " " { after += 1 }
                    if after < text.count, text[after] == ":" {
                        problems.append(
                            FleetFileProblem(
                                file: file, line: line + 1, column: column + 1,
                                problem:
                                    "key \"\(name)\" is given twice in this mapping "
                                    + "(first at line \(first.line), column \(first.column))",
                                expected: "each key once"))
                        return
                    }
                }
                column += 1
            }
            line += 1
            column = 0
        }
        problems.append(
            FleetFileProblem(
                file: file, line: first.line, column: first.column,
                problem: "key \"\(name)\" is given twice in this mapping",
                expected: "each key once"))
    }

    private mutating func reportSyntax(_ error: YamlError) {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _):
            let detail = [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
            problems.append(
                FleetFileProblem(
                    file: file, line: mark.line, column: mark.column, problem: "YAML syntax: \(detail)",
                    expected: "valid YAML"))
        case .composer(let context, let problem, let mark, _):
            let detail = [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
            problems.append(
                FleetFileProblem(
                    file: file, line: mark.line, column: mark.column, problem: "YAML: \(detail)", expected: "valid YAML"
                ))
        default:
            problems.append(
                FleetFileProblem(file: file, line: 0, column: 0, problem: "YAML: \(error)", expected: "valid YAML"))
        }
    }

    mutating func mapping(_ node: Node, _ what: String) -> Node.Mapping? {
        guard let map = node.mapping else {
            report(node, "\(what) is not a mapping", expected: "`key: value` lines")
            return nil
        }
        return map
    }

    package mutating func sequence(_ node: Node, _ what: String) -> [Node]? {
        guard let list = node.sequence else {
            report(node, "`\(what)` is not a list", expected: "a list (`- item` lines)")
            return nil
        }
        return Array(list)
    }

    mutating func checkKeys(_ map: Node.Mapping, _ allowed: Set<String>, in context: String) {
        for key in map.keys {
            guard let name = key.string, allowed.contains(name) else {
                let suggestion = NameSuggestion.nearest(to: key.string ?? "", among: allowed)
                report(
                    key,
                    "unknown key \"\(key.string ?? "?")\" in \(context)"
                        + NameSuggestion.hint(suggestion),
                    expected: allowed.isEmpty ? "none here" : "one of \(allowed.sorted().joined(separator: ", "))")
                let path = context.hasPrefix("a ") || context.hasPrefix("the ") ? "" : context + "."
                problems[problems.count - 1].unknownField = path + (key.string ?? "?")
                problems[problems.count - 1].suggestion = suggestion
                continue
            }
        }
    }

    mutating func string(_ node: Node?, _ field: String) -> String? {
        guard let node else { return nil }
        guard let scalar = node.scalar else {
            report(node, "`\(field)` is not a single value", expected: "a string")
            return nil
        }
        if jsonTypes, scalar.tag.rawValue != Tag.Name.str.rawValue {
            report(node, "`\(field)` is \(scalar.string), not a string", expected: "a string")
            problems[problems.count - 1].field = field
            return nil
        }
        return scalar.string
    }

    mutating func stringList(_ node: Node, _ field: String) -> [String] {
        if let scalar = node.scalar { return [scalar.string] }
        guard let list = sequence(node, field) else { return [] }
        return list.compactMap { string($0, field) }
    }

    /// `field` as a group gives it per platform: one value or a list for every platform of the
    /// group (for `osVersion`, whose releases belong to one platform, only when the group has
    /// one), or `{ios: …, android: …}`. Each text comes with its node, for errors.
    mutating func platformTexts(
        _ node: Node, _ field: String, platforms: [Platform], shared: Bool
    ) -> [(platform: Platform, texts: [(node: Node, text: String)])] {
        if let map = node.mapping {
            var result: [(platform: Platform, texts: [(node: Node, text: String)])] = []
            for (key, value) in map {
                guard let platform = key.string.flatMap(Platform.init(rawValue:)) else {
                    report(
                        key, "unknown platform \"\(key.string ?? "")\" in `\(field)`", expected: "`ios` or `android`")
                    continue
                }
                result.append((platform, textList(value, "\(field).\(platform.rawValue)")))
            }
            return result
        }
        let distinct = Platform.allCases.filter { platforms.contains($0) }
        if !shared, distinct.count > 1 {
            report(
                node, "`\(field)` gives one list to a group of both ios and android devices",
                expected: "`\(field)` per platform, such as `{ios: \"18.7\", android: \"15\"}`")
            return []
        }
        let texts = textList(node, field)
        return (shared ? Platform.allCases : distinct).map { ($0, texts) }
    }

    /// One text or a list of them, at least one.
    mutating func textList(_ node: Node, _ field: String) -> [(node: Node, text: String)] {
        if node.scalar != nil {
            return string(node, field).map { [(node, $0)] } ?? []
        }
        guard let list = sequence(node, field) else { return [] }
        if list.isEmpty { report(node, "`\(field)` is an empty list", expected: "at least one value") }
        return list.compactMap { item in string(item, field).map { (item, $0) } }
    }

    /// OS releases of `platform`: each one to three numbers, from the oldest release Beekon runs on.
    mutating func osVersionList(_ texts: [(node: Node, text: String)], platform: Platform) -> [OSVersion] {
        let name = platform == .ios ? "iOS" : "Android"
        let oldest = OSVersion.oldestMajor(platform)
        var versions: [OSVersion] = []
        for (node, text) in texts {
            guard let version = OSVersion(text), (oldest...99).contains(version.major) else {
                let problem =
                    OSVersion(text).map { _ in "\(name) \(text) is not a release Beekon runs on" }
                    ?? "`osVersion` \"\(text)\" is not an OS release"
                report(node, problem, expected: "\(name) \(oldest) to 99, one to three numbers such as \(oldest).4")
                continue
            }
            versions.append(version)
        }
        return versions
    }

    mutating func stringMap(_ node: Node, _ field: String) -> StringMap? {
        guard let map = mapping(node, "`\(field)`") else { return nil }
        var result = StringMap()
        for (key, value) in map {
            guard let name = key.string, let text = string(value, "\(field).\(key.string ?? "?")") else { continue }
            result[name] = text
        }
        return result
    }

    /// Header fields: a string map whose every key is an HTTP field name (RFC 9110's token:
    /// letters, digits and ``!#$%&'*+-.^_`|~``), as the requests will carry them.
    mutating func headerMap(_ node: Node, _ field: String) -> StringMap? {
        guard let map = stringMap(node, field) else { return nil }
        for (name, _) in map where HTTPField.Name(name) == nil {
            let keyNode = node.mapping?.keys.first { $0.string == name } ?? node
            report(
                keyNode, "`\(field)` key \"\(name)\" is not an HTTP header name",
                expected: "a name of letters, digits and !#$%&'*+-.^_`|~, such as X-Api-Key")
            problems[problems.count - 1].field = "\(field).\(name)"
        }
        return map
    }

    package mutating func url(_ node: Node, _ field: String) -> String? {
        guard let text = string(node, field) else { return nil }
        guard let parsed = URL(string: text), let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            parsed.host != nil
        else {
            report(node, "\"\(text)\" is not an http(s) URL", expected: "a URL such as http://127.0.0.1:8081/ingest")
            return nil
        }
        return text
    }

    /// A number for `field` in `range`, read from the scalar's text by `NumberRange` (so `.nan`,
    /// `.inf`, `1e300` and `2^63` are refused as every other surface refuses them). With
    /// `orWords`, the field also takes those words, and text that is no number names them.
    package mutating func number(
        _ node: Node, _ field: String, _ range: NumberRange, orWords words: String? = nil, what: String = "a number"
    ) -> Double? {
        do throws(NumberProblem) {
            return try range.read(try numberText(node, range))
        } catch {
            reportNumber(node, field, error, orWords: words, what: what)
            return nil
        }
    }

    /// A whole number for `field` in `range`, read exactly from the scalar's text.
    package mutating func integer(_ node: Node, _ field: String, _ range: NumberRange) -> Int64? {
        do throws(NumberProblem) {
            return try range.readInteger(try numberText(node, range))
        } catch {
            reportNumber(node, field, error)
            return nil
        }
    }

    /// An ISO-8601 UTC instant from 1970 to 9999 (`Timestamp.inputRange`), Unix ms.
    package mutating func instant(_ node: Node, _ text: String, _ field: String) -> Int64? {
        let expected =
            "`now` or an ISO-8601 UTC time from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, "
            + "such as 2026-06-15T08:00:00Z"
        guard let millis = Timestamp.unixMillis(parsingISO8601: text) else {
            report(node, "`\(field)` \"\(text)\" is not an instant", expected: expected)
            return nil
        }
        guard Timestamp.inputRange.contains(Double(millis)) else {
            report(node, "`\(field)` \"\(text)\" is out of range", expected: expected)
            return nil
        }
        return millis
    }

    /// One of `words` for `field`, as written (the SDK's names are case-sensitive).
    mutating func choice(_ node: Node, _ field: String, _ words: [String]) -> String? {
        guard node.scalar != nil else {
            report(node, "`\(field)` is not a single value", expected: "one of \(words.joined(separator: ", "))")
            problems[problems.count - 1].field = field
            return nil
        }
        guard let text = string(node, field) else { return nil }
        guard words.contains(text) else {
            report(
                node, "`\(field)` \"\(text)\" is not one of its words",
                expected: "one of \(words.joined(separator: ", "))")
            problems[problems.count - 1].field = field
            return nil
        }
        return text
    }

    /// An SDK version for `field` (`ActionParameter.isVersion`).
    mutating func version(_ node: Node, _ field: String) -> String? {
        guard let text = string(node, field) else { return nil }
        guard ActionParameter.isVersion(text) else {
            report(node, "`\(field)` \"\(text)\" is not an SDK version", expected: ActionParameter.versionExpected)
            problems[problems.count - 1].field = field
            return nil
        }
        return text
    }

    /// An action's instant for `field`: RFC 3339 with a zone (`Z` or an offset), from 1970 to
    /// 9999, Unix ms (an action runs at a virtual instant a file cannot know, so no `now`).
    /// An action's instant (`deleteLocations`' `before`): a bound, so any RFC 3339 date-time
    /// (years 0000 to 9999, any offset), as the API's `from` and `to`; one before 1970 is before
    /// every fix.
    mutating func actionInstant(_ node: Node, _ field: String) -> Int64? {
        let expected = "an RFC 3339 instant (years 0000 to 9999, with its offset), such as 2026-06-15T08:00:00Z"
        guard let text = string(node, field) else { return nil }
        guard let millis = Timestamp.unixMillis(parsingISO8601: text) else {
            report(node, "`\(field)` \"\(text)\" is not an instant", expected: expected)
            problems[problems.count - 1].field = field
            return nil
        }
        return millis
    }

    /// The text of a scalar node; a mapping or a list reads as `…`, which no number reader takes.
    private func scalarText(_ node: Node) -> String {
        node.scalar?.string ?? "…"
    }

    /// The text of a plain scalar, for a number reader; a quoted one (`"5"`, the JSON string of
    /// an admin API spec) is text, not a number, and is refused.
    private func numberText(_ node: Node, _ range: NumberRange) throws(NumberProblem) -> String {
        let text = scalarText(node)
        if let style = node.scalar?.style, style == .singleQuoted || style == .doubleQuoted {
            throw NumberProblem(value: text, reason: .notANumber, expected: range.description)
        }
        return text
    }

    /// Reports `problem` at `node`, naming `field`; text that is no number `is not <what>`.
    private mutating func reportNumber(
        _ node: Node, _ field: String, _ problem: NumberProblem, orWords words: String? = nil, what: String = "a number"
    ) {
        let expected =
            words.map { problem.reason == .notANumber ? "\($0), or \(problem.expected)" : problem.expected }
            ?? problem.expected
        let text = problem.reason == .notANumber ? "is not \(what)" : problem.problem
        report(node, "`\(field)` \"\(problem.value)\" \(text)", expected: expected)
        problems[problems.count - 1].field = field
    }

    package mutating func bool(_ node: Node, _ field: String) -> Bool? {
        guard let value = node.bool, !jsonTypes || node.tag.rawValue == Tag.Name.bool.rawValue else {
            report(
                node, "\"\(node.scalar?.string ?? "…")\" is not true or false",
                expected: "`true` or `false` for `\(field)`")
            return nil
        }
        return value
    }

    /// Milliseconds in `range`: a bare number counts as milliseconds, or a duration with its unit.
    package mutating func millis(_ node: Node, _ field: String, _ range: NumberRange) -> Int64? {
        let text = scalarText(node)
        if (try? FleetDuration.anyNumber.read(text)) != nil {
            do throws(NumberProblem) {
                return try range.readInteger(try numberText(node, range))
            } catch {
                reportNumber(node, field, error)
                return nil
            }
        }
        do throws(NumberProblem) {
            return Int64(try range.check(Double(try FleetDuration.read(text)), written: text))
        } catch {
            // The field's own range, not that of durations in general.
            let problem = NumberProblem(
                value: error.value, reason: error.reason,
                expected: "\(range), or a duration such as 90s, 10m, 1h30m or 500ms")
            reportNumber(node, field, problem, what: "a duration")
            return nil
        }
    }

    /// A duration for `field`, ms, read by `read`: `FleetDuration.read` (0 to 366 days) unless
    /// told otherwise (`FleetDuration.readRunLength` for a run's length); text `read` cannot read
    /// is not `what`.
    package mutating func duration(
        _ node: Node, _ field: String, _ read: (String) throws(NumberProblem) -> Int64 = FleetDuration.read,
        what: String = "a duration"
    ) -> Int64? {
        do throws(NumberProblem) {
            return try read(scalarText(node))
        } catch {
            reportNumber(node, field, error, what: what)
            return nil
        }
    }

    mutating func enumValue<Value: RawRepresentable & CaseIterable>(
        _ node: Node, _ field: String, _ type: Value.Type
    )
        -> Value?
    where Value.RawValue == String {
        guard let text = node.scalar?.string, let value = Value(rawValue: text) else {
            report(
                node, "\"\(node.scalar?.string ?? "…")\" is not a valid `\(field)`",
                expected: "one of \(Value.allCases.map(\.rawValue).joined(separator: ", "))")
            return nil
        }
        return value
    }
}
