import FleetReport

/// `GET /api/v1/devices`: one page.
struct DeviceListBody: APIBody {
    var devices: [DeviceSummaryBody]
    var total: Int
    var next: String?

    static let example = DeviceListBody(devices: [], total: 0, next: nil)
    static let component: String? = "DeviceList"
    static let notes = [
        "total": APINote("How many devices match the filters."),
        "next": APINote("The cursor of the next page; null on the last."),
    ]
}
