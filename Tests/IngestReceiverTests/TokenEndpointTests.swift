import BeekonNet
import FleetTestSupport
import Foundation
import HTTPMessage
import HTTPTypes
import Testing

@testable import IngestReceiver

/// The token endpoint the SDK's `AuthConfig` refreshes against.
@Suite("Token endpoint")
struct TokenEndpointTests {
    static func request(
        _ harness: ReceiverHarness, form: String? = nil, json: String? = nil
    ) async -> HTTPResult {
        let (type, body) = form.map { ("application/x-www-form-urlencoded", $0) } ?? ("application/json", json ?? "")
        return await harness.send(
            OutboundRequest(
                url: harness.receiver.tokenURL!,
                headerFields: HTTPFields(textPairs: [("Content-Type", type), ("Authorization", "Bearer old")]),
                body: Array(body.utf8),
                timeoutMillis: 15_000, connectionKey: "auth"))
    }

    @Test("a form body with a refresh token gets a token pair with the configured expiry")
    func formBody() async throws {
        let harness = try ReceiverHarness { $0.tokenEndpoint.expiresIn = 900 }
        let result = await Self.request(harness, form: "grant_type=refresh_token&refresh_token=seed%2Btoken")
        #expect(result.status == 200)
        let json = result.json
        #expect((json["access_token"] as? String)?.hasPrefix("at-") == true)
        #expect((json["refresh_token"] as? String)?.hasPrefix("rt-") == true)
        #expect(json["expires_in"] as? Int == 900)
        #expect(json["token_type"] as? String == "Bearer")
        #expect(harness.receiver.stats().tokensIssued == 1)
    }

    @Test("a JSON body works too, and an issued refresh token can be exchanged again")
    func jsonBody() async throws {
        let harness = try ReceiverHarness { $0.tokenEndpoint.refreshTokens = ["seed"] }
        let first = await Self.request(harness, json: #"{"grant_type": "refresh_token", "refresh_token": "seed"}"#)
        #expect(first.status == 200)
        let rotated = try #require(first.json["refresh_token"] as? String)
        let second = await Self.request(harness, json: #"{"refreshToken": "\#(rotated)"}"#)
        #expect(second.status == 200)
        #expect(second.json["access_token"] as? String != first.json["access_token"] as? String)
        let unknown = await Self.request(harness, json: #"{"refresh_token": "stolen"}"#)
        #expect(unknown.status == 400)
        #expect(unknown.reason.hasPrefix("refresh_token"))
    }

    @Test("a body without a refresh token, or not a form nor JSON, is refused 400")
    func missingRefreshToken() async throws {
        let harness = try ReceiverHarness()
        #expect(await Self.request(harness, form: "grant_type=refresh_token").status == 400)
        #expect(await Self.request(harness, json: #"{"refresh_token": 7}"#).status == 400)
        #expect(await Self.request(harness, json: "{not json").status == 400)
        let get = await harness.send(
            OutboundRequest(url: harness.receiver.tokenURL!, method: .get, connectionKey: "auth"))
        #expect(get.status == 405)
    }

    @Test("told to fail, it answers the status for the first N requests, then issues", arguments: [503, 401, 302])
    func failFirst(status: Int) async throws {
        let harness = try ReceiverHarness {
            $0.tokenEndpoint.failStatus = status
            $0.tokenEndpoint.failFirst = 2
        }
        var statuses: [Int] = []
        for _ in 0..<3 {
            let result = await Self.request(harness, form: "refresh_token=r")
            statuses.append(result.status ?? 0)
            if result.status == status { #expect(result.json["access_token"] == nil) }
        }
        #expect(statuses == [status, status, 200])
    }

    @Test("told to fail without a count, it fails every request")
    func failAlways() async throws {
        let harness = try ReceiverHarness { $0.tokenEndpoint.failStatus = 500 }
        for _ in 0..<3 { #expect(await Self.request(harness, form: "refresh_token=r").status == 500) }
    }

    @Test("told to omit the token, it answers 200 without access_token")
    func omitToken() async throws {
        let harness = try ReceiverHarness { $0.tokenEndpoint.omitToken = true }
        let result = await Self.request(harness, json: #"{"refresh_token": "r"}"#)
        #expect(result.status == 200)
        #expect(result.json["access_token"] == nil)
        #expect(harness.receiver.stats().tokensIssued == 0)
    }

    @Test("turned off, its path is 404")
    func off() async throws {
        let harness = try ReceiverHarness { $0.tokenEndpoint.path = nil }
        #expect(harness.receiver.tokenURL == nil)
        let result = await harness.send(
            OutboundRequest(
                url: harness.receiver.baseURL + "/oauth/token", body: Array("refresh_token=r".utf8), connectionKey: "a")
        )
        #expect(result.status == 404)
    }
}
