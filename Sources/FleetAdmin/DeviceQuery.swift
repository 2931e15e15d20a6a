import BeekonDevice
import FleetEngine

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

    /// The page of matching devices, how many match, and the cursor of the next page. Filters
    /// and sorts slot numbers by keys read in place, never the devices themselves: a device's
    /// snapshot is large, and a fleet may hold a hundred thousand.
    func page(of snapshot: FleetSnapshot) -> (devices: [DeviceSnapshot], total: Int, next: String?) {
        let table = snapshot.devices
        let matching = table.indices.filter { slot in
            table.read(slot) { device in
                !device.deleted && (group == nil || device.group == group)
                    && (state.map { device.state.matches($0) } ?? true)
                    && (outcome == nil || device.lastOutcome?.description == outcome)
                    && (text.map { device.id.contains($0) } ?? true)
            }
        }
        let ids = matching.map { slot in table.read(slot) { $0.id } }
        let ascending: (Int, Int) -> Bool
        switch sort {
        case .id:
            ascending = { ids[$0] < ids[$1] }
        case .state:
            let states = matching.map { slot in table.read(slot) { $0.state.description } }
            ascending = { (states[$0], ids[$0]) < (states[$1], ids[$1]) }
        case .pending:
            let pending = matching.map { slot in table.read(slot) { $0.pending } }
            ascending = { (pending[$0], ids[$0]) < (pending[$1], ids[$1]) }
        case .lastUpload:
            let last = matching.map { slot in table.read(slot) { $0.lastUploadAt ?? .min } }
            ascending = { (last[$0], ids[$0]) < (last[$1], ids[$1]) }
        }
        var order = Array(matching.indices)
        order.sort(by: descending ? { ascending($1, $0) } : ascending)
        let start = min(offset, order.count)
        let end = min(start + limit, order.count)
        let next = end < order.count ? Self.cursor(offset: end) : nil
        return (order[start..<end].map { table[matching[$0]] }, order.count, next)
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
