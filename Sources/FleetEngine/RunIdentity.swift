import FleetDescription
import Foundation

/// What makes an earlier run on a data folder the same run as this one: the fleet's name, its
/// groups, and where each group uploads. A run resumes the devices of its own run alone, so a
/// test never inherits the backlog of a run against another server; the rest of the fleet file
/// (its duration, warp, seed, counts, faults) may change between the two, as a run goes on.
///
/// Kept in the data folder's `run-identity.json` (0600), written at the start of every run.
public struct RunIdentity: Sendable, Hashable, Codable {
    /// A group by its name, and where it uploads.
    public struct Group: Sendable, Hashable, Codable {
        public var name: String
        /// The resolved ingest URL (`inProcessReceiver` for the receiver a run starts itself, whose
        /// port differs from run to run); nil for a group that does not upload.
        public var ingest: String?

        public init(name: String, ingest: String?) {
            self.name = name
            self.ingest = ingest
        }
    }

    /// The fleet file's `name`.
    public var fleet: String
    /// Its groups, by name.
    public var groups: [Group]

    /// The file's name in the data folder.
    public static let fileName = "run-identity.json"
    /// The ingest of a group that uploads to the reference receiver the run starts in-process.
    public static let inProcessReceiver = "in-process"

    /// The shape `run-identity.json` must have, for error messages.
    static let expected =
        #"a JSON object {"fleet": <name>, "groups": [{"name": <group>, "ingest": <URL or "in-process">}, …]}"#

    public init(fleet: String, groups: [Group]) {
        self.fleet = fleet
        self.groups = groups.sorted { $0.name < $1.name }
    }

    /// The identity of a run of `fleet` given `ingest` (`--ingest`), or uploading to the
    /// in-process receiver where `inProcessReceiver` (the run had no ingest URL).
    public init(fleet: FleetFile, ingest: String?, inProcessReceiver: Bool) {
        let given = inProcessReceiver ? Self.inProcessReceiver : ingest
        self.init(
            fleet: fleet.name,
            groups: fleet.groups.map { Group(name: $0.name, ingest: fleet.ingestURL(of: $0.config, given: given)) })
    }

    /// The record as the file holds it.
    public var json: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        // Two strings and a list of them: encoding cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Reads a record from `data`, the contents of the file at `path`; throws a `RunError` that
    /// names the file and what was expected.
    public init(json data: Data, path: String) throws(RunError) {
        guard let stored = try? JSONDecoder().decode(Self.self, from: data) else {
            throw RunError(description: "the run record \(path) is not what a run writes; expected \(Self.expected)")
        }
        self.init(fleet: stored.fleet, groups: stored.groups)
    }

    /// Where the run uploads, in words: one ingest for every group that uploads, or each group's.
    func uploads(dataDirectory: String) -> String {
        func place(_ ingest: String) -> String {
            ingest == Self.inProcessReceiver
                ? "the in-process receiver (\(dataDirectory)/ingest.db)" : ingest.isEmpty ? "no URL" : ingest
        }
        let uploading = groups.filter { $0.ingest != nil }
        let places = Set(uploading.compactMap(\.ingest))
        if places.isEmpty { return "nowhere (no group uploads)" }
        if places.count == 1, let only = places.first { return place(only) }
        return uploading.map { "\(place($0.ingest ?? "")) (group \"\($0.name)\")" }.joined(separator: ", ")
    }

    /// `"a", "b"`.
    private var groupNames: String { groups.map { "\"\($0.name)\"" }.joined(separator: ", ") }

    /// How a run of `self` differs from `earlier`, the run the data folder at `dataDirectory`
    /// holds, in words that name both sides; nil when it is the same run.
    public func difference(from earlier: RunIdentity, dataDirectory: String) -> String? {
        guard earlier != self else { return nil }
        let otherFleet = earlier.fleet != fleet
        let otherGroups = earlier.groups.map(\.name) != groups.map(\.name)
        let otherIngest =
            earlier.uploads(dataDirectory: dataDirectory) != uploads(dataDirectory: dataDirectory)
            // The same places, shared out otherwise among the same groups.
            || (!otherGroups && earlier.groups != groups)
        var held = "the data folder \(dataDirectory) holds a run of fleet \"\(earlier.fleet)\""
        var this: [String] = []
        if otherFleet { this.append("is of fleet \"\(fleet)\"") }
        if otherGroups {
            held += " (groups \(earlier.groupNames))"
            this.append("has groups \(groupNames)")
        }
        if otherIngest {
            held += " uploading to \(earlier.uploads(dataDirectory: dataDirectory))"
            this.append("uploads to \(uploads(dataDirectory: dataDirectory))")
        }
        let said = this.count > 1 ? this.dropLast().joined(separator: ", ") + " and " + this.last! : this[0]
        return "\(held); this run \(said)"
    }
}
