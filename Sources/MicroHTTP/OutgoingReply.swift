public import HTTPTypes

/// A response to send: its head (status and header fields, in order) and its body.
public struct OutgoingReply: Sendable {
    public var head: HTTPResponse
    public var body: [UInt8]

    /// A reply with a status, header fields and a body.
    public init(status: Int, headerFields: HTTPFields = [:], body: [UInt8] = []) {
        head = HTTPResponse(status: .init(code: status), headerFields: headerFields)
        self.body = body
    }

    /// The status code.
    public var status: Int { head.status.code }

    /// A JSON reply.
    public static func json(_ status: Int, _ body: [UInt8], headerFields: HTTPFields = [:]) -> OutgoingReply {
        var fields: HTTPFields = [.contentType: "application/json"]
        fields.append(contentsOf: headerFields)
        return OutgoingReply(status: status, headerFields: fields, body: body)
    }
}
