import BeekonDevice
import FleetEngine
import FleetReport
import Foundation

/// `GET /api/v1/devices`' query: filters, a sort, and a page.
struct DeviceQuery {
    enum SortKey: String {
        case id, state, pending, lastUpload
    }

    var group: String?
    var state: String?
    var outcome: String?
    var text: String?
    var sort = SortKey.id
    var descending = false
    var limit = 50
    var offset = 0

    /// `limit`: devices a page.
    static let limitRange = NumberRange.integer(1...1000, unit: "devices")

    /// Reads and checks the query arguments.
    init(_ query: [String: String]) throws(APIError) {
        group = query["group"].flatMap { $0.isEmpty ? nil : $0 }
        state = query["state"].flatMap { $0.isEmpty ? nil : $0 }
        outcome = query["outcome"].flatMap { $0.isEmpty ? nil : $0 }
        text = query["q"].flatMap { $0.isEmpty ? nil : $0 }
        if var sortText = query["sort"], !sortText.isEmpty {
            if sortText.hasPrefix("-") {
                descending = true
                sortText.removeFirst()
            }
            guard let key = SortKey(rawValue: sortText) else {
                throw .badRequest(
                    "sort \"\(sortText)\" is not one of id, state, pending, lastUpload (with - for descending)",
                    field: "sort")
            }
            sort = key
        }
        if let value = try Self.integer(query, "limit", Self.limitRange) { limit = Int(value) }
        if let cursor = query["cursor"], !cursor.isEmpty {
            guard let offset = Self.offset(cursor: cursor) else {
                throw .badRequest(
                    "cursor \"\(cursor.prefix(40))\" is not one this server gave; expected the `next` of a page "
                        + "(1 to 9 digits)",
                    field: "cursor")
            }
            self.offset = offset
        }
    }

    /// The page of matching devices, how many match, and the cursor of the next page.
    func page(of snapshot: FleetSnapshot) -> (devices: ArraySlice<DeviceSnapshot>, total: Int, next: String?) {
        var matching = snapshot.devices.filter { device in
            !device.deleted && (group == nil || device.group == group)
                && (state.map { device.state.matches($0) } ?? true)
                && (outcome == nil || device.lastOutcome?.description == outcome)
                && (text.map { device.id.contains($0) } ?? true)
        }
        let ascending: (DeviceSnapshot, DeviceSnapshot) -> Bool
        switch sort {
        case .id: ascending = { $0.id < $1.id }
        case .state: ascending = { ($0.state.description, $0.id) < ($1.state.description, $1.id) }
        case .pending: ascending = { ($0.pending, $0.id) < ($1.pending, $1.id) }
        case .lastUpload: ascending = { ($0.lastUploadAt ?? Int64.min, $0.id) < ($1.lastUploadAt ?? Int64.min, $1.id) }
        }
        matching.sort(by: descending ? { ascending($1, $0) } : ascending)
        let start = min(offset, matching.count)
        let end = min(start + limit, matching.count)
        let next = end < matching.count ? Self.cursor(offset: end) : nil
        return (matching[start..<end], matching.count, next)
    }

    /// A page's place in the sorted list: its offset, 1 to 9 digits (`cursorPattern`).
    static func cursor(offset: Int) -> String {
        String(offset)
    }

    /// What a cursor is, as the OpenAPI document's `cursor` says it.
    static let cursorPattern = "^[0-9]{1,9}$"

    static func offset(cursor: String) -> Int? {
        guard (1...9).contains(cursor.utf8.count), cursor.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return Int(cursor)
    }

    /// The query argument `name` as a whole number in `range`; nil when absent or empty.
    static func integer(_ query: [String: String], _ name: String, _ range: NumberRange) throws(APIError) -> Int64? {
        guard let text = query[name], !text.isEmpty else { return nil }
        do throws(NumberProblem) {
            return try range.readInteger(text)
        } catch {
            throw .badNumber(
                name,
                NumberProblem(value: String(error.value.prefix(40)), reason: error.reason, expected: error.expected))
        }
    }
}
