/// A string → string map that keeps the order it was given: the app's `extras`, static sync
/// headers, and the auth recipe's refresh payload and headers.
///
/// Order is kept (as the SDK's platform maps keep it) so that the same extras always give the
/// same upload bytes. Setting a key that exists replaces its value in place.
public struct StringMap: Sendable, Hashable, Codable, ExpressibleByDictionaryLiteral, Sequence {
    /// The entries in order; keys are unique.
    public private(set) var entries: [(key: String, value: String)] = []

    /// An empty map.
    public init() {}

    /// A map from pairs in order; a repeated key keeps its first place and its last value.
    public init(_ pairs: some Sequence<(String, String)>) {
        for (key, value) in pairs { self[key] = value }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// Whether the map is empty (the payload then omits `extras`).
    public var isEmpty: Bool { entries.isEmpty }

    /// The number of entries.
    public var count: Int { entries.count }

    /// The value for `key`; setting nil removes it.
    public subscript(key: String) -> String? {
        get { entries.first { $0.key == key }?.value }
        set {
            let index = entries.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): entries[index].value = value
            case (let index?, nil): entries.remove(at: index)
            case (nil, let value?): entries.append((key, value))
            case (nil, nil): break
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: String)]> {
        entries.makeIterator()
    }

    public static func == (lhs: StringMap, rhs: StringMap) -> Bool {
        lhs.entries.elementsEqual(rhs.entries) { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for entry in entries {
            hasher.combine(entry.key)
            hasher.combine(entry.value)
        }
    }

    /// Encoded as an array of `[key, value]` pairs, because a JSON object's order does not
    /// survive decoding.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for entry in entries { try container.encode([entry.key, entry.value]) }
    }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd {
            let pair = try container.decode([String].self)
            guard pair.count == 2 else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "expected a [key, value] pair")
            }
            self[pair[0]] = pair[1]
        }
    }
}
