import BeekonDevice
import Testing

@testable import FleetDescription

/// A group's `standbyBucket:` and the `standbyBucket` action: what they read, and how they refuse.
@Suite("App Standby buckets in fleet files")
struct StandbyBucketTests {
    static func fleet(bucket: String?, fault: String = "") -> String {
        """
        name: standby
        groups:
          - name: g
            count: 2
            route: r.csv
        \(bucket.map { "    standbyBucket: \($0)" } ?? "")
        faults:
          - at: 1m
            action: sync
        \(fault)
        """
    }

    static func parse(_ yaml: String) throws(FleetFileProblems) -> FleetFile {
        try FleetFile.parse(yaml: yaml, file: "f.yaml")
    }

    @Test(
        "a group's bucket is read by its Android name; left out, the app is active",
        arguments: [
            (nil, StandbyBucket.active), ("active", .active), ("workingSet", .workingSet), ("frequent", .frequent),
            ("rare", .rare), ("restricted", .restricted),
        ] as [(String?, StandbyBucket)])
    func reads(bucket: String?, expected: StandbyBucket) throws {
        #expect(try Self.parse(Self.fleet(bucket: bucket)).groups[0].standbyBucket == expected)
    }

    @Test(
        "each bucket defers jobs by up to Android's limit: none, 2 h, 8 h, 24 h, 24 h",
        arguments: zip(StandbyBucket.allCases, [0, 7_200_000, 28_800_000, 86_400_000, 86_400_000] as [Int64]))
    func limits(bucket: StandbyBucket, millis: Int64) {
        #expect(bucket.maxDeferralMillis == millis)
    }

    @Test(
        "a bucket it does not know is refused at its line, naming the field, the value and the buckets",
        arguments: [
            (
                "Rare",
                "f.yaml:6:20: error: `standbyBucket` \"Rare\" is not one of its words; expected one of active, "
                    + "workingSet, frequent, rare, restricted"
            ),
            (
                "{bucket: rare}",
                "f.yaml:6:20: error: `standbyBucket` is not a single value; expected one of active, workingSet, "
                    + "frequent, rare, restricted"
            ),
        ])
    func refuses(bucket: String, message: String) {
        do throws(FleetFileProblems) {
            _ = try Self.parse(Self.fleet(bucket: bucket))
            Issue.record("\(bucket) was taken")
        } catch {
            #expect(error.problems.map(\.description) == [message])
        }
    }

    @Test(
        "the standbyBucket action reads its bucket, reads it back, and lasts until the group's own is back",
        arguments: [("", nil), ("params: {bucket: rare}", StandbyBucket.rare)] as [(String, StandbyBucket?)])
    func action(params: String, expected: StandbyBucket?) throws {
        let fault = """
              - at: 2m
                action: standbyBucket
                \(params)
            """
        let action = try Self.parse(Self.fleet(bucket: "frequent", fault: fault)).faults[1].action
        #expect(action == .standbyBucket(expected))
        #expect(FleetAction(action.name, action.parameterValues) == action)
        #expect(action.name.details.lasts)
    }

    @Test("the action refuses a bucket it does not know, naming the buckets")
    func actionRefuses() {
        let fault = """
              - at: 2m
                action: standbyBucket
                params: {bucket: never}
            """
        do throws(FleetFileProblems) {
            _ = try Self.parse(Self.fleet(bucket: nil, fault: fault))
            Issue.record("taken")
        } catch {
            #expect(
                error.problems.map(\.description).joined().contains("active, workingSet, frequent, rare, restricted"))
        }
    }
}
