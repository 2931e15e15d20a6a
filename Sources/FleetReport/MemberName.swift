/// A member name known only when encoding (a map's keys, an action's parameters).
package struct MemberName: CodingKey {
    package var stringValue: String
    package var intValue: Int? { nil }
    package init(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }
}
