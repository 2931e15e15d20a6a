/// One shape of a request body: the members it needs, and those it may add.
struct APIRequestForm: Sendable {
    var required: [String]
    var optional: [String] = []
}
