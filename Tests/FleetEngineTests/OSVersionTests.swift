import BeekonDevice
import FleetTestSupport
import Foundation
import Testing

@testable import FleetDescription
@testable import FleetEngine
@testable import FleetRuntime

/// OS releases and SDK versions per platform (issue #16 item 11): read from a group, drawn from
/// tables of releases in use when it names none, and the lifecycle difference they make.
@Suite("OS and SDK versions")
struct OSVersionTests {
    @Test(
        "an OS version is one to three whole numbers, the first at least 1",
        arguments: [
            ("18.7", [18, 7] as [Int]?), ("16.7.12", [16, 7, 12]), ("15", [15]), ("17.10", [17, 10]),
            ("", nil), ("18.", nil), (".7", nil), ("18.7.1.2", nil), ("0.9", nil), ("18a", nil), ("1000", nil),
            ("-1", nil), ("١٨", nil), ("18 .7", nil),
        ])
    func parsing(text: String, parts: [Int]?) {
        #expect(OSVersion(text)?.parts == parts)
        if let version = OSVersion(text) { #expect(version.description == text) }
    }

    @Test("releases order by number, missing parts as 0")
    func ordering() throws {
        let versions = try ["16.7.12", "17", "17.0.1", "9.9", "17.10"].map { try #require(OSVersion($0)) }
        #expect(versions.sorted().map(\.description) == ["9.9", "16.7.12", "17", "17.0.1", "17.10"])
    }

    @Test(
        "start() reaches Tracking at once on iOS 17+, at the first fix on iOS 15–16 and Android (seed 01)",
        arguments: [
            (Platform.ios, "17.0", [TrackingState.starting, .tracking], [TrackingState]()),
            (.ios, "27.1", [.starting, .tracking], []),
            (.ios, "16.7", [.starting], [.tracking]),
            (.ios, "15", [.starting], [.tracking]),
            (.android, "16", [.starting], [.tracking]),
        ])
    func lifecycle(platform: Platform, version: String, atStart: [TrackingState], atFix: [TrackingState]) {
        var lifecycle = Lifecycle(platform: platform, osVersion: OSVersion(version))
        #expect(lifecycle.start() == atStart)
        #expect(lifecycle.firstFixArrived() == atFix)
        #expect(lifecycle.state == .tracking)
    }

    static func group(_ lines: String, platform: String = "{ios: 0.5, android: 0.5}") -> String {
        """
        name: versions
        groups:
          - name: g
            count: 4
            platform: \(platform)
            route: r.csv
        \(lines.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
        """
    }

    @Test(
        "osVersion and sdkVersion as written: one, a list, or per platform",
        arguments: [
            (
                "osVersion: {ios: [\"18.7\", \"16.7\"], android: \"15\"}", "{ios: 0.5, android: 0.5}",
                PlatformValues(ios: ["18.7", "16.7"], android: ["15"]), PlatformValues<String>()
            ),
            ("osVersion: 17.5", "ios", PlatformValues(ios: ["17.5"], android: []), PlatformValues()),
            (
                "osVersion: [\"14\", \"13\"]", "android", PlatformValues(ios: [], android: ["14", "13"]),
                PlatformValues()
            ),
            ("sdkVersion: 0.2.0", "{ios: 1, android: 1}", PlatformValues(), PlatformValues(["0.2.0"])),
            (
                "sdkVersion: {ios: 0.1.1, android: [0.1.1, 0.1.0]}", "{ios: 1, android: 1}", PlatformValues(),
                PlatformValues(ios: ["0.1.1"], android: ["0.1.1", "0.1.0"])
            ),
        ] as [(String, String, PlatformValues<String>, PlatformValues<String>)])
    func reading(lines: String, platform: String, os: PlatformValues<String>, sdk: PlatformValues<String>) throws {
        let fleet = try FleetFile.parse(yaml: Self.group(lines, platform: platform), file: "f.yaml")
        let group = try #require(fleet.groups.first)
        #expect(group.osVersions.ios.map(\.description) == os.ios)
        #expect(group.osVersions.android.map(\.description) == os.android)
        #expect(group.sdkVersions == sdk)
    }

    @Test(
        "a bad osVersion or sdkVersion is refused at its line, saying what was expected",
        arguments: [
            (
                "osVersion: \"14.2\"", "ios",
                "f.yaml:7:16: error: iOS 14.2 is not a release Beekon runs on; expected iOS 15 to 99"
            ),
            (
                "osVersion: \"7\"", "android",
                "f.yaml:7:16: error: Android 7 is not a release Beekon runs on; expected Android 8"
            ),
            ("osVersion: \"eighteen\"", "ios", "f.yaml:7:16: error: `osVersion` \"eighteen\" is not an OS release"),
            (
                "osVersion: \"17.5\"", "{ios: 1, android: 1}",
                "f.yaml:7:16: error: `osVersion` gives one list to a group of both"
            ),
            ("osVersion: {windows: \"11\"}", "ios", "f.yaml:7:17: error: unknown platform \"windows\" in `osVersion`"),
            ("osVersion: []", "ios", "f.yaml:7:16: error: `osVersion` is an empty list; expected at least one value"),
            ("sdkVersion: \"0.1 beta\"", "ios", "f.yaml:7:17: error: `sdkVersion` \"0.1 beta\" is not an SDK version"),
        ])
    func refusals(lines: String, platform: String, message: String) {
        #expect {
            _ = try FleetFile.parse(yaml: Self.group(lines, platform: platform), file: "f.yaml")
        } throws: { error in
            guard let error = error as? FleetFileProblems else { return false }
            return error.problems.count == 1 && error.description.contains(message)
        }
    }

    @Test("with no osVersion each device takes its platform's table round-robin; the SDK version defaults to 0.1.1")
    func tables() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let yaml = """
            name: tables
            seed: 5
            clock: {start: 2026-06-15T08:00:00Z, warp: 60}
            groups:
              - name: iphones
                count: 20
                platform: ios
                route: walk.csv
              - name: pixels
                count: 20
                platform: android
                route: walk.csv
                sdkVersion: [0.1.1, 0.1.0]
            """
        let fleet = try workspace.simulated(yaml, timing: .deterministic)
        let slots = fleet.engine.slots
        #expect(slots.filter { $0.group == 0 }.map(\.identity.osVersion) == OSVersions.ios)
        #expect(slots.filter { $0.group == 1 }.map(\.identity.osVersion) == OSVersions.android)
        #expect(slots.filter { $0.group == 0 }.allSatisfy { $0.identity.sdkVersion == "0.1.1" })
        #expect(
            slots.filter { $0.group == 1 }.map(\.identity.sdkVersion).prefix(4) == ["0.1.1", "0.1.0", "0.1.1", "0.1.0"])
        var engine = fleet.engine
        engine.recordChanges()
        let snapshot = engine.fleetSnapshot(metrics: engine.snapshot(), paused: false, realNanos: 0)
        #expect(snapshot.device("iphones-0008")?.osVersion == "16.7")
        #expect(snapshot.device("pixels-0002")?.sdkVersion == "0.1.0")
    }

    @Test("in a mixed group each platform's devices take that platform's list in turn, whatever their index")
    func mixedGroupInTurn() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let yaml = """
            name: mixed
            seed: 3
            clock: {start: 2026-06-15T08:00:00Z, warp: 60}
            groups:
              - name: phones
                count: 30
                platform: {ios: 0.5, android: 0.5}
                osVersion: {ios: ["16.7", "18.7"], android: ["14", "15", "16"]}
                model: ["iPhone15,3", "iPhone16,1", "Pixel 8", "Pixel 9"]
                route: walk.csv
            """
        let fleet = try workspace.simulated(yaml, timing: .deterministic)
        let ios = fleet.engine.slots.filter { $0.identity.platform == .ios }
        let android = fleet.engine.slots.filter { $0.identity.platform == .android }
        #expect(ios.count > 5 && android.count > 5)
        #expect(ios.map(\.identity.osVersion.description) == ios.indices.map { ["16.7", "18.7"][$0 % 2] })
        #expect(android.map(\.identity.osVersion.description) == android.indices.map { ["14", "15", "16"][$0 % 3] })
        #expect(ios.map(\.identity.model) == ios.indices.map { ["iPhone15,3", "iPhone16,1"][$0 % 2] })
        #expect(android.map(\.identity.model) == android.indices.map { ["Pixel 8", "Pixel 9"][$0 % 2] })
    }

    @Test("the tables hold only releases Beekon runs on, each platform's own")
    func tableReleases() {
        for platform in Platform.allCases {
            #expect(OSVersions.table(platform).count == 20)
            #expect(OSVersions.table(platform).allSatisfy { $0.major >= OSVersion.oldestMajor(platform) })
        }
    }
}
