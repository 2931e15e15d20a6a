import BeekonDevice
import FleetTestSupport
import Foundation
import Testing

@testable import FleetDescription
@testable import FleetRuntime

@Suite("Fleet file")
struct FleetFileTests {
    static let full = """
        name: couriers-london
        seed: 42
        clock:
          start: 2026-06-15T08:00:00Z
          warp: 60
        ingest: http://127.0.0.1:8081/ingest
        groups:
          - name: couriers
            count: 200
            platform: {ios: 0.6, android: 0.4}
            model: ["iPhone15,3", Pixel 8]
            route: [routes/london-walk.gpx, routes/berlin-bike.csv]
            pace: cycle
            speedFactor: 1.2
            dwell: {every: 800, for: 2m}
            startOffset: random
            spread: 10m
            config:
              preset: precision
              whenStationary: pauseWithCheckIns
              detectActivity: true
              sync:
                headers: {X-Api-Key: demo}
                intervalSeconds: 120
                batchSize: 50
                syncThreshold: 10
                auth:
                  accessToken: seed-access
                  refreshToken: seed-refresh
                  refreshUrl: http://127.0.0.1:8081/oauth/token
                  refreshPayload: {grant_type: refresh_token, refresh_token: "{refreshToken}"}
                  refreshBodyFormat: json
            extras: {courier: "courier-{index}", team: "{group}"}
            geofences:
              - {id: depot, latitude: 51.5072, longitude: -0.1276, radius: 150}
            provider: {gapsPerHour: 2, outlierProbability: 0.02}
          - name: offline-phones
            count: 5
            platform: ios
            route: routes/paris-drive.geojson
            config:
              sync: false
        faults:
          - at: 30m
            for: 5m
            select: {group: couriers}
            action: networkOffline
          - at: 1h
            select: {fraction: 0.1}
            action: latency
            params: {ms: 800}
          - at: 90m
            select: all
            action: sync
        """

    @Test("a complete fleet file reads into groups, configs and a fault timeline")
    func complete() throws {
        let fleet = try FleetFile.parse(yaml: Self.full, file: "fleet.yaml")
        #expect(fleet.name == "couriers-london")
        #expect(fleet.seed == 42)
        #expect(fleet.clock.start == 1_781_510_400_000)
        #expect(fleet.clock.warp == .rate(60))
        #expect(fleet.groups.count == 2)
        let couriers = fleet.groups[0]
        #expect(couriers.count == 200)
        #expect(couriers.platforms.map(\.platform) == [.ios, .android])
        #expect(couriers.models == ["iPhone15,3", "Pixel 8"])
        #expect(couriers.routes == ["routes/london-walk.gpx", "routes/berlin-bike.csv"])
        #expect(couriers.pace == .pace(.cycle, factor: 1.2))
        #expect(couriers.dwell?.everyMeters == 800 && couriers.dwell?.seconds == 120)
        #expect(couriers.startOffset == .random)
        #expect(couriers.spreadMillis == 600_000)
        #expect(couriers.config.preset == .precision)
        #expect(couriers.config.whenStationary == .pauseWithCheckIns)
        let sync = try #require(couriers.config.sync)
        #expect(sync.url == "http://127.0.0.1:8081/ingest")
        #expect(sync.batchSize == 50 && sync.syncThreshold == 10 && sync.intervalSeconds == 120)
        #expect(sync.auth?.refreshBodyFormat == .json)
        #expect(sync.auth?.refreshPayload["refresh_token"] == "{refreshToken}")
        #expect(couriers.extras == ["courier": "courier-{index}", "team": "{group}"])
        #expect(couriers.geofences.first?.radiusMeters == 150)
        #expect(couriers.provider.gapsPerHour == 2)
        #expect(fleet.groups[1].config.sync == nil)
        #expect(fleet.groups[1].platforms.map(\.platform) == [.ios])
        #expect(fleet.faults.map(\.action) == [.networkOffline, .latency(millis: 800), .sync])
        #expect(fleet.faults[0].atMillis == 1_800_000 && fleet.faults[0].forMillis == 300_000)
        #expect(fleet.faults[0].selector == .group("couriers"))
        #expect(fleet.faults[2].selector == .all)
    }

    @Test(
        "a group without a config block has the SDK's defaults and uploads to the run's ingest, as documented",
        arguments: [
            ("ingest: http://127.0.0.1:8081/ingest\n", "http://127.0.0.1:8081/ingest", false),
            ("", "", true),
        ])
    func noConfigBlockUploads(top: String, url: String, needsIngest: Bool) throws {
        let yaml = """
            name: plain
            \(top)groups:
              - name: walkers
                count: 2
                route: walk.csv
            """
        let fleet = try FleetFile.parse(yaml: yaml, file: "fleet.yaml")
        let config = try #require(fleet.groups.first?.config)
        #expect(config.sync?.url == url)
        #expect(config.sync?.intervalSeconds == SyncConfig(url: "").intervalSeconds)
        #expect(config.preset == BeekonConfig().preset)
        #expect(fleet.needsIngestURL == needsIngest)
    }

    @Test("every problem is reported at once, each with its line and what was expected")
    func problems() {
        let yaml = """
            name: broken
            groups:
              - name: a
                count: zero
                route: r.gpx
                pace: teleport
                colour: red
              - name: a
                count: 3
                route: r.gpx
                config:
                  preset: turbo
                  sync:
                    url: ftp://nope
                    batchSize: 5000
                    headers: {"X Api": k}
            faults:
              - at: soon
                action: networkOffline
              - at: 1m
                action: dance
              - at: 2m
                select: {group: nobody}
                action: sync
                for: 1m
            """
        do {
            _ = try FleetFile.parse(yaml: yaml, file: "fleet.yaml")
            Issue.record("a broken file parsed")
        } catch {
            let lines = error.problems.map(\.line)
            let text = error.description
            #expect(
                text.contains(
                    "fleet.yaml:4:12: error: `count` \"zero\" is not a number; "
                        + "expected a whole number from 1 to 100000 devices"
                ))
            #expect(
                text.contains("fleet.yaml:6:11: error: `pace` \"teleport\" is not a pace; expected `route`, `walk`"))
            #expect(text.contains("fleet.yaml:7:5: error: unknown key \"colour\" in a group"))
            #expect(text.contains("fleet.yaml:8:11: error: group name \"a\" is used twice"))
            #expect(text.contains("fleet.yaml:12:15: error: \"turbo\" is not a valid `preset`"))
            #expect(text.contains("fleet.yaml:14:14: error: \"ftp://nope\" is not an http(s) URL"))
            #expect(
                text.contains(
                    "fleet.yaml:15:20: error: `sync.batchSize` \"5000\" is out of range; "
                        + "expected a whole number from 1 to 1000"
                ))
            #expect(
                text.contains(
                    "fleet.yaml:18:9: error: `at` \"soon\" is not a duration; expected a duration from 0s to 366d"))
            #expect(
                text.contains(
                    "fleet.yaml:16:19: error: `sync.headers` key \"X Api\" is not an HTTP header name; "
                        + "expected a name of letters, digits and !#$%&'*+-.^_`|~, such as X-Api-Key"))
            #expect(text.contains("fleet.yaml:21:13: error: unknown action \"dance\""))
            #expect(text.contains("fleet.yaml:23:21: error: no group is named \"nobody\""))
            #expect(text.contains("fleet.yaml:25:10: error: `sync` does not last"))
            #expect(lines == lines.sorted())
            #expect(error.problems.count == 12)
        }
    }

    @Test("YAML syntax errors name the line")
    func syntax() {
        do {
            _ = try FleetFile.parse(yaml: "name: x\ngroups: [\n  - a\n", file: "bad.yaml")
            Issue.record("bad YAML parsed")
        } catch {
            #expect(error.problems.count == 1)
            #expect(error.problems[0].line > 0)
            #expect(error.description.hasPrefix("bad.yaml:"))
        }
    }

    @Test("missing essentials are reported: groups, count, route")
    func essentials() {
        do {
            _ = try FleetFile.parse(yaml: "name: x\n", file: "f.yaml")
            Issue.record("parsed")
        } catch {
            #expect(error.description.contains("no `groups`"))
        }
        do {
            _ = try FleetFile.parse(yaml: "groups:\n  - name: g\n", file: "f.yaml")
            Issue.record("parsed")
        } catch {
            #expect(error.description.contains("has no `count`"))
            #expect(error.description.contains("has no `route`"))
        }
    }

    @Test("a group's empty name is refused at its line: its devices' ids would start with a dash")
    func emptyGroupName() {
        do {
            _ = try FleetFile.parse(yaml: "groups:\n  - name: \"\"\n    count: 1\n    route: r.gpx\n", file: "f.yaml")
            Issue.record("parsed")
        } catch {
            #expect(error.description.contains("f.yaml:2:11: error: a group's `name` is empty"), "\(error)")
        }
    }

    @Test(
        "clock.warp is a rate or max, clock.deterministic true or false; anything else is refused where it stands",
        arguments: [
            ("{warp: 60}", Warp?(.rate(60)), false, nil),
            ("{warp: max}", .max, false, nil),
            ("{warp: Max, deterministic: true}", .max, true, nil),
            ("{warp: 'max'}", .max, false, nil),
            ("{warp: 0.5, deterministic: true}", .rate(0.5), true, nil),
            ("{deterministic: false}", .rate(1), false, nil),
            (
                "{warp: fast}", nil, false,
                "f.yaml:1:15: error: `clock.warp` \"fast\" is not a number; expected `max`, "
                    + "or a number from 0.01 to 10000"
            ),
            (
                "{warp: 20000}", nil, false,
                "f.yaml:1:15: error: `clock.warp` \"20000\" is out of range; expected a number from 0.01 to 10000"
            ),
            (
                "{deterministic: sometimes}", nil, false,
                "f.yaml:1:24: error: \"sometimes\" is not true or false; expected `true` or `false` "
                    + "for `clock.deterministic`"
            ),
        ] as [(String, Warp?, Bool, String?)])
    func clockBlock(clock: String, warp: Warp?, deterministic: Bool, problem: String?) {
        let yaml = "clock: \(clock)\ngroups:\n  - {name: a, count: 1, route: r.csv}\n"
        do throws(FleetFileProblems) {
            let fleet = try FleetFile.parse(yaml: yaml, file: "f.yaml")
            #expect(problem == nil)
            #expect(fleet.clock.warp == warp && fleet.clock.deterministic == deterministic)
        } catch {
            #expect(error.problems.map(\.description) == [problem].compactMap { $0 }, "\(error)")
        }
    }

    @Test(
        "a key given twice is reported at the second one, with where the first is",
        arguments: [
            (
                "name: a\nname: b\ngroups: []\n",
                "f.yaml:2:1: error: key \"name\" is given twice in this mapping "
                    + "(first at line 1, column 1); expected each key once"
            ),
            (
                "clock: {warp: 2, warp: 3}\ngroups:\n  - {name: a, count: 1, route: r.csv}\n",
                "f.yaml:1:18: error: key \"warp\" is given twice in this mapping "
                    + "(first at line 1, column 9); expected each key once"
            ),
            (
                "groups:\n  - name: a\n    count: 1\n    route: r.csv\n"
                    + "    config:\n      preset: saver\n      preset: precision\n",
                "f.yaml:7:7: error: key \"preset\" is given twice in this mapping "
                    + "(first at line 6, column 7); expected each key once"
            ),
        ])
    func duplicateKeys(yaml: String, problem: String) {
        #expect(throws: FleetFileProblems.self) { try FleetFile.parse(yaml: yaml, file: "f.yaml") }
        do throws(FleetFileProblems) {
            _ = try FleetFile.parse(yaml: yaml, file: "f.yaml")
        } catch {
            #expect(error.problems.map(\.description).contains(problem), "\(error)")
        }
    }

    @Test(
        "durations: 90s, 10m, 1h30m, 500ms, 2d and bare seconds, from 0 to 366 days",
        arguments: [
            ("90s", Int64?(90_000)), ("10m", 600_000), ("1h30m", 5_400_000), ("500ms", 500), ("2d", 172_800_000),
            ("45", 45_000), ("1.5h", 5_400_000), ("0", 0), ("366d", 31_622_400_000), ("1e3", 1_000_000),
            ("", nil), ("10x", nil), ("m", nil), ("-5s", nil), ("-1", nil), ("367d", nil), ("1e300", nil),
            ("1e300d", nil), ("9223372036854775808", nil), ("5e-324", 0), ("nan", nil), ("inf", nil), (".inf", nil),
            ("0x10", nil), ("1..5s", nil),
        ])
    func durations(text: String, millis: Int64?) {
        #expect((try? FleetDuration.read(text)) == millis)
    }

    @Test(
        "a refused duration says the value and the range",
        arguments: [
            ("1e300", "\"1e300\" is out of range"), ("-1", "\"-1\" is out of range"),
            ("nan", "\"nan\" is not a number"),
            ("5x", "\"5x\" is not a number"),
        ])
    func durationProblem(text: String, problem: String) {
        #expect(throws: NumberProblem.self) { try FleetDuration.read(text) }
        do throws(NumberProblem) {
            _ = try FleetDuration.read(text)
        } catch {
            #expect(
                error.description == "\(problem); expected a duration from 0s to 366d, such as 90s, 10m, 1h30m or 500ms"
            )
        }
    }

    /// A one-group fleet file with `line` as its second line.
    static func withTopLine(_ line: String) -> String {
        """
        name: d
        \(line)
        groups:
          - name: g
            count: 1
            route: r.csv
        """
    }

    @Test(
        """
        `duration` is the run's length on the virtual clock, 1 ms \
        to 366 days; a bad one is reported at file:line:column
        """,
        arguments: [
            ("duration: 8h", Int64?(28_800_000), String?.none),
            ("duration: 1h30m", 5_400_000, nil),
            ("duration: \"90m\"", 5_400_000, nil),
            ("duration: 1ms", 1, nil),
            ("duration: 366d", 31_622_400_000, nil),
            ("seed: 3", nil, nil),
            ("duration: 0", nil, "f.yaml:2:11: error: `duration` \"0\" is out of range"),
            ("duration: 0s", nil, "f.yaml:2:11: error: `duration` \"0s\" is out of range"),
            ("duration: 0.4ms", nil, "f.yaml:2:11: error: `duration` \"0.4ms\" is out of range"),
            ("duration: -1", nil, "f.yaml:2:11: error: `duration` \"-1\" is out of range"),
            ("duration: -5m", nil, "f.yaml:2:11: error: `duration` \"-5m\" is not a duration"),
            ("duration: 367d", nil, "f.yaml:2:11: error: `duration` \"367d\" is out of range"),
            ("duration: 1e300", nil, "f.yaml:2:11: error: `duration` \"1e300\" is out of range"),
            ("duration:   .nan", nil, "f.yaml:2:13: error: `duration` \".nan\" is not a duration"),
            ("duration: soon", nil, "f.yaml:2:11: error: `duration` \"soon\" is not a duration"),
            ("duration: {h: 8}", nil, "f.yaml:2:11: error: `duration` \"…\" is not a duration"),
        ])
    func runDuration(line: String, millis: Int64?, problem: String?) {
        do throws(FleetFileProblems) {
            let fleet = try FleetFile.parse(yaml: Self.withTopLine(line), file: "f.yaml")
            #expect(problem == nil, "\(line) was taken")
            #expect(fleet.durationMillis == millis)
        } catch {
            guard let message = problem else {
                Issue.record("\(line) was refused: \(error)")
                return
            }
            #expect(
                error.problems.map(\.description) == [
                    message + "; expected a duration from 1ms to 366d, such as 30m, 8h or 2d"
                ])
        }
    }

    @Test(
        "a duration is written back as a fleet file writes it, largest unit first, and reads back the same",
        arguments: [
            (Int64(0), "0s"), (1, "1ms"), (1500, "1s500ms"), (1_800_000, "30m"), (5_400_000, "1h30m"),
            (28_800_000, "8h"), (172_800_000, "2d"), (90_061_001, "1d1h1m1s1ms"), (31_622_400_000, "366d"),
        ])
    func durationText(millis: Int64, text: String) throws {
        #expect(FleetDuration.text(millis: millis) == text)
        #expect(try FleetDuration.read(text) == millis)
    }

    @Test("route files are read relative to the fleet file, and their problems reported at the line naming them")
    func routes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("beekon-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("routes"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "lat,lon\n51.5,-0.12\n51.6,-0.13\n".write(
            to: folder.appendingPathComponent("routes/good.csv"), atomically: true, encoding: .utf8)
        try "lat,lon\n51.5,-0.12\nabc,-0.13\n".write(
            to: folder.appendingPathComponent("routes/bad.csv"), atomically: true, encoding: .utf8)
        let fleetPath = folder.appendingPathComponent("fleet.yaml").path
        try "groups:\n  - name: a\n    count: 1\n    route: routes/good.csv\n".write(
            toFile: fleetPath, atomically: true, encoding: .utf8)
        #expect(try FleetFile.load(path: fleetPath).groups[0].routes == ["routes/good.csv"])
        try "groups:\n  - name: a\n    count: 1\n    route: [routes/bad.csv, routes/missing.gpx]\n".write(
            toFile: fleetPath, atomically: true, encoding: .utf8)
        do {
            _ = try FleetFile.load(path: fleetPath)
            Issue.record("bad routes passed")
        } catch {
            #expect(error.problems.count == 2)
            #expect(error.problems.map(\.line) == [4, 4])
            #expect(error.description.contains("routes/bad.csv:3:1: error:"))
            #expect(error.description.contains("missing.gpx: error: no such file"))
        }
    }

    @Test(
        "every fleet file shipped in fleets/ is valid, routes included",
        arguments: [
            "demo.yaml", "couriers-rotating-tokens.yaml", "commuters-network-outage.yaml", "real-world.yaml",
        ])
    func shippedFleets(name: String) throws {
        let fleets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fleets")
        let fleet = try FleetFile.load(path: fleets.appendingPathComponent(name).path)
        #expect(!fleet.groups.isEmpty)
    }

    @Test("a fleet file's route files are read once: the run starts from what the reader read")
    func routesReadOnce() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let fleet = try workspace.fleet(Workspace.yaml(devices: 2))
        #expect(Set(fleet.routes.keys) == ["walk.csv"])
        // Gone from the folder, the route still serves the run: it is not read a second time.
        try FileManager.default.removeItem(at: workspace.folder.appendingPathComponent("walk.csv"))
        let routes = try RunFiles.routes(of: fleet, folder: workspace.folder.path)
        #expect(routes["walk.csv"] == fleet.routes["walk.csv"])
        #expect(routes["walk.csv"]?.points.isEmpty == false)
    }
}
