import BeekonNet
import HTTPMessage
import HTTPTypes
import Testing

@testable import FleetEngine

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
                request: OutboundRequest(
                    url: request.url, body: Array(request.body.utf8), connectionKey: request.device))
        }
        return digest
    }

    @Test(
        """
        each device's requests in the same order give the same digest, \
        however devices interleave, on any port; anything else gives another
        """
    )
    func sameAndDifferent() {
        let base = Self.digest([
            ("a", "http://h:1/ingest", "{1}"), ("b", "http://h:1/ingest", "{2}"), ("a", "http://h:1/ingest", "{3}"),
        ])
        for same in [
            Self.digest([
                ("a", "http://h:2/ingest", "{1}"), ("b", "http://h:2/ingest", "{2}"), ("a", "http://h:2/ingest", "{3}"),
            ]),  // a port
            Self.digest([
                ("b", "http://h:1/ingest", "{2}"), ("a", "http://h:1/ingest", "{1}"), ("a", "http://h:1/ingest", "{3}"),
            ]),  // interleaving
        ] {
            #expect(same.text == base.text)
        }
        #expect(base.count == 3 && base.text.count == 16)
        for other in [
            Self.digest([
                ("a", "http://h:1/ingest", "{3}"), ("b", "http://h:1/ingest", "{2}"), ("a", "http://h:1/ingest", "{1}"),
            ]),  // one device's order
            Self.digest([
                ("a", "http://h:1/ingest", "{1}"), ("b", "http://h:1/ingest", "{2}"), ("b", "http://h:1/ingest", "{3}"),
            ]),  // a device
            Self.digest([
                ("a", "http://h:1/ingest", "{1}"), ("b", "http://h:1/ingest", "{4}"), ("a", "http://h:1/ingest", "{3}"),
            ]),  // a body
            Self.digest([
                ("ab", "http://h:1/ingest", "{1}"), ("", "http://h:1/ingest", "{2}"),
                ("ab", "http://h:1/ingest", "{3}"),
            ]),  // a boundary
            Self.digest([
                ("a", "http://h:1/other", "{1}"), ("b", "http://h:1/ingest", "{2}"), ("a", "http://h:1/ingest", "{3}"),
            ]),  // a path
            Self.digest([("a", "http://h:1/ingest", "{1}"), ("b", "http://h:1/ingest", "{2}")]),  // one fewer
        ] {
            #expect(other.text != base.text)
        }
    }
}

extension RequestDigestTests {
    @Test("the digests of a fleet's parts, merged in any order or nesting, are the whole fleet's digest")
    func mergedParts() {
        let requests: [(device: String, url: String, body: String)] = [
            ("a", "http://h:1/ingest", "{1}"), ("b", "http://h:1/ingest", "{2}"), ("c", "http://h:1/ingest", "{3}"),
            ("a", "http://h:1/ingest", "{4}"), ("d", "http://h:1/ingest", "{5}"),
        ]
        let whole = Self.digest(requests)
        let part = { (devices: Set<String>) in Self.digest(requests.filter { devices.contains($0.device) }) }
        var flat = part(["a"])
        flat.merge(part(["b", "d"]))
        flat.merge(part(["c"]))
        var nested = part(["c"])
        var inner = part(["d"])
        inner.merge(part(["a", "b"]))
        nested.merge(inner)
        for merged in [flat, nested] {
            #expect(merged == whole)
            #expect(merged.text == whole.text && merged.count == 5)
            #expect(merged.hashValue == whole.hashValue)
        }
        var short = part(["a"])
        short.merge(part(["b"]))
        #expect(short != whole)
    }
}
