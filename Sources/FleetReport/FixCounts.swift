import FleetEngine

/// Some of the run's own counts of one account (`FixAccount.counters`), written as members of the
/// object that holds them.
package struct FixCounts: Sendable {
    var values: [(counter: FixCounter, value: Int)]

    init(_ account: FixAccount, _ shown: (FixCounter) -> Bool) {
        values = FixAccount.counters.filter(shown).map { ($0, account[keyPath: $0.value]) }
    }

    /// The API's form: a counter's member, its parts in one object.
    func encodeGrouped(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        var index = values.startIndex
        while index < values.endIndex {
            let member = values[index].counter.member
            guard values[index].counter.part != nil else {
                try container.encode(values[index].value, forKey: MemberKey(member))
                index += 1
                continue
            }
            var parts = container.nestedContainer(keyedBy: MemberKey.self, forKey: MemberKey(member))
            while index < values.endIndex, values[index].counter.member == member, let part = values[index].counter.part
            {
                try parts.encode(values[index].value, forKey: MemberKey(part))
                index += 1
            }
        }
    }

    /// Each count a member of its own: the report's `duplicates` name, else its member and part.
    func encodeFlat(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        for (counter, value) in values { try container.encode(value, forKey: MemberKey(Self.flatName(counter))) }
    }

    static func flatName(_ counter: FixCounter) -> String {
        counter.duplicates ?? counter.member + (counter.part.map { $0.prefix(1).uppercased() + $0.dropFirst() } ?? "")
    }

    /// What the API's document says of each counter's member.
    static var apiNotes: [String: APINote] {
        Dictionary(FixAccount.counters.compactMap { counter in counter.note.map { (counter.member, APINote($0)) } }) {
            first, _ in first
        }
    }

    /// What the report's schema says of the counters `shown`, by their flat names.
    static func reportNotes(_ shown: (FixCounter) -> Bool) -> [String: APINote] {
        Dictionary(
            FixAccount.counters.filter(shown).compactMap { counter in
                counter.reportNote.map { (flatName(counter), APINote($0)) }
            }
        ) { first, _ in first }
    }

    /// A member named by the counters' table (in camelCase: the encoder's style writes it).
    struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
