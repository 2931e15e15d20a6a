import BeekonNet
import Testing

@testable import FleetKit

/// The digest a run prints of what it sent.
struct RequestDigestTests {
    @Test(
        "the digest leaves out the scheme, host and port, and keeps the path and query",
        arguments: [
            ("http://127.0.0.1:8081/ingest", "/ingest"),
            ("https://ingest.example.com/v1/locations?key=1", "/v1/locations?key=1"),
            ("http://127.0.0.1:9", "/"),
            ("not a url", "not a url"),
        ])
    func pathAndQuery(url: String, kept: String) {
        #expect(RequestDigest.pathAndQuery(url) == kept[...])
    }

    static func digest(_ requests: [(device: String, url: String, body: String)]) -> RequestDigest {
        var digest = RequestDigest()
        for request in requests {
            digest.add(
                device: request.device,
                request: HTTPRequest(url: request.url, body: Array(request.body.utf8), connectionKey: request.device))
        }
        return digest
    }

    @Test("the same requests in the same order give the same digest, on any port; anything else gives another")
    func sameAndDifferent() {
        let base = Self.digest([("a", "http://h:1/ingest", "{1}"), ("b", "http://h:1/ingest", "{2}")])
        #expect(base == Self.digest([("a", "http://h:2/ingest", "{1}"), ("b", "http://h:2/ingest", "{2}")]))
        #expect(base.count == 2 && base.text.count == 16)
        for other in [
            Self.digest([("b", "http://h:1/ingest", "{2}"), ("a", "http://h:1/ingest", "{1}")]),  // order
            Self.digest([("a", "http://h:1/ingest", "{1}"), ("b", "http://h:1/ingest", "{3}")]),  // a body
            Self.digest([("ab", "http://h:1/ingest", "{1}"), ("", "http://h:1/ingest", "{2}")]),  // a boundary
            Self.digest([("a", "http://h:1/other", "{1}"), ("b", "http://h:1/ingest", "{2}")]),  // a path
        ] {
            #expect(other != base)
        }
    }
}
