import FleetReport

/// `GET /api/v1/devices/{id}/uploads`.
struct UploadsBody: APIBody {
    var uploads: [UploadRecordBody]

    static let example = UploadsBody(uploads: [])
    static let component: String? = "Uploads"
    static let notes = ["uploads": APINote("The last 50, most recent first.", maxItems: 50)]
}
