import Foundation
import HTTPMessage
import HTTPTypes
import Testing

@testable import BeekonDevice

@Suite("Token refresh recipe")
struct RefreshOutcomeTests {
    static let now: Int64 = 1_781_526_896_789
    static let previous = TokenSet(accessToken: "old-access", refreshToken: "old-refresh", expiresAt: 1)

    static func outcome(_ status: Int, _ body: String, mapping: ResponseMapping? = nil) -> RefreshOutcome {
        RefreshOutcome(status: status, body: Array(body.utf8), mapping: mapping, previous: previous, now: now)
    }

    @Test(
        "2xx with a token adopts the new token set",
        arguments: [
            (200, #"{"access_token":"a","expires_in":3600}"#), (201, #"{"token":"a"}"#),
        ])
    func adopted(status: Int, body: String) {
        guard case .adopted = Self.outcome(status, body) else {
            Issue.record("expected a token to be adopted")
            return
        }
    }

    @Test(
        "2xx without a token, 3xx and other 4xx are dead credentials",
        arguments: [
            (200, #"{"expires_in":3600}"#), (200, "not json"), (200, #"{"access_token":""}"#), (204, ""),
            (301, ""), (302, ""), (400, ""), (401, ""), (403, ""), (404, ""), (422, ""),
        ])
    func dead(status: Int, body: String) {
        #expect(Self.outcome(status, body) == .deadCredentials)
    }

    @Test("408, 429 and 5xx are transient", arguments: [408, 429, 500, 502, 503, 504])
    func transient(status: Int) {
        #expect(Self.outcome(status, #"{"access_token":"a"}"#) == .transient)
    }

    @Test("the access token is read in order: mapping, access_token, accessToken, token")
    func accessTokenOrder() {
        let body = #"{"data":{"jwt":"m"},"access_token":"a","accessToken":"b","token":"c"}"#
        #expect(
            Self.outcome(200, body, mapping: ResponseMapping(accessToken: "data.jwt"))
                == .adopted(TokenSet(accessToken: "m", refreshToken: "old-refresh", expiresAt: nil)))
        #expect(
            Self.outcome(200, body) == .adopted(TokenSet(accessToken: "a", refreshToken: "old-refresh", expiresAt: nil))
        )
        #expect(
            Self.outcome(200, #"{"accessToken":"b","token":"c"}"#)
                == .adopted(TokenSet(accessToken: "b", refreshToken: "old-refresh", expiresAt: nil)))
        #expect(
            Self.outcome(200, #"{"token":"c"}"#)
                == .adopted(TokenSet(accessToken: "c", refreshToken: "old-refresh", expiresAt: nil)))
    }

    @Test(
        "expiry: relative counts from now, absolute is epoch seconds, numeric strings count",
        arguments: [
            (#"{"token":"t","expires_in":3600}"#, Int64?(now + 3_600_000)),
            (#"{"token":"t","expires_in":"3600"}"#, now + 3_600_000),
            (#"{"token":"t","expiresIn":60}"#, now + 60_000),
            (#"{"token":"t","expires_at":1781530000}"#, 1_781_530_000_000),
            (#"{"token":"t","expiresAt":"1781530000"}"#, 1_781_530_000_000),
            (#"{"token":"t","expiresAt":1781530000,"expires_in":5}"#, 1_781_530_000_000),
            (#"{"token":"t","expires_in":true}"#, nil),
            (#"{"token":"t"}"#, nil),
        ])
    func expiry(body: String, expiresAt: Int64?) {
        guard case .adopted(let tokens) = Self.outcome(200, body) else {
            Issue.record("expected adoption")
            return
        }
        #expect(tokens.expiresAt == expiresAt)
    }

    @Test("a rotated refresh token replaces the old one; a missing one keeps it")
    func rotation() {
        #expect(
            Self.outcome(200, #"{"token":"t","refresh_token":"r2"}"#)
                == .adopted(TokenSet(accessToken: "t", refreshToken: "r2", expiresAt: nil)))
        #expect(
            Self.outcome(200, #"{"token":"t","data":{"rt":"r3"}}"#, mapping: ResponseMapping(refreshToken: "data.rt"))
                == .adopted(TokenSet(accessToken: "t", refreshToken: "r3", expiresAt: nil)))
    }

    @Test("the refresh request templates payload and headers; form body by default")
    func formRequest() throws {
        let recipe = AuthConfig(
            refreshURL: "https://auth.example.com/oauth/token",
            refreshPayload: ["grant_type": "refresh_token", "refresh_token": "{refreshToken}", "note": "a b&c=é"])
        let request = try #require(
            RefreshRequest(recipe: recipe, tokens: TokenSet(accessToken: "acc", refreshToken: "ref/+", expiresAt: nil)))
        #expect(request.head.target == "https://auth.example.com/oauth/token")
        #expect(
            request.head.headerFields.lines == [
                "Authorization: Bearer acc", "Content-Type: application/x-www-form-urlencoded",
            ])
        #expect(
            String(decoding: request.body, as: UTF8.self)
                == "grant_type=refresh_token&refresh_token=ref%2F%2B&note=a%20b%26c%3D%C3%A9")
    }

    @Test("a JSON refresh body carries the templated payload")
    func jsonRequest() throws {
        let recipe = AuthConfig(
            refreshURL: "https://auth.example.com/token",
            refreshPayload: ["refresh": "{refreshToken}", "old": "{accessToken}"],
            refreshHeaders: ["X-Client": "fleet"], refreshBodyFormat: .json)
        let request = try #require(
            RefreshRequest(recipe: recipe, tokens: TokenSet(accessToken: nil, refreshToken: "r\"1", expiresAt: nil)))
        #expect(request.head.headerFields.lines.last == "Content-Type: application/json")
        #expect(request.head.headerFields.lines.first == "X-Client: fleet")
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"refresh":"r\"1","old":""}"#)
    }

    @Test("seed-only auth (no refresh URL) builds no refresh request")
    func seedOnly() {
        #expect(RefreshRequest(recipe: AuthConfig(accessToken: "a"), tokens: Self.previous) == nil)
    }
}
