import FleetTestSupport
import Foundation
import Testing

@testable import IngestReceiver

/// The rules file: every field read, every mistake named with its field and what was expected.
@Suite("Rules file")
struct RulesFileTests {
    @Test("a complete rules file sets the script, the auth and the token endpoint")
    func complete() throws {
        var configuration = IngestReceiverConfiguration()
        try configuration.applyRules(
            json: Array(
                #"""
                {
                  "seed": 7,
                  "mix": [{"answer": 503, "percent": 10}, {"answer": "hang", "percent": 1}, \#
                {"answer": "close", "percent": 0.5}],
                  "fail_first": {"count": 2, "status": 429},
                  "retry_after": 30,
                  "latency_ms": 25,
                  "hang_ms": 9000,
                  "store_before_fault": true,
                  "require_token": true,
                  "tokens": ["k1", "k2"],
                  "token_endpoint": {"path": "/token", "expires_in": 60, "fail_status": 503, "fail_first": 1,
                                     "omit_token": false, "refresh_tokens": ["seed"]}
                }
                """#.utf8), file: "rules.json")
        #expect(
            configuration.script
                == AnswerScript(
                    seed: 7,
                    mix: [
                        MixEntry(.status(503), percent: 10), MixEntry(.hang, percent: 1),
                        MixEntry(.close, percent: 0.5),
                    ],
                    failFirst: 2, failFirstStatus: 429, retryAfter: "30", latencyMillis: 25, hangMillis: 9000,
                    storeBeforeFault: true))
        #expect(configuration.auth == AuthScript(requireToken: true, tokens: ["k1", "k2"]))
        #expect(
            configuration.tokenEndpoint
                == TokenScript(path: "/token", expiresIn: 60, failStatus: 503, failFirst: 1, refreshTokens: ["seed"]))
    }

    @Test(
        "a mistake names the file, the field and what was expected",
        arguments: [
            (#"{"latency": 5}"#, "rules.json: latency: unknown field"),
            (#"{"seed": "x"}"#, "rules.json: seed: expected a whole number from 0 to 999999999999999, got \"x\""),
            (#"{"seed": -1}"#, "rules.json: seed: \"-1\" is out of range; expected a whole number from 0"),
            (#"{"latency_ms": 1e16}"#, "rules.json: latency_ms: \"1e16\" is not a whole number"),
            (#"{"latency_ms": 1.0}"#, "rules.json: latency_ms: \"1.0\" is not a whole number"),
            (#"{"hang_ms": 9223372036854775808}"#, "rules.json: hang_ms: \"9223372036854775808\" is out of range"),
            (
                #"{"hang_ms": 86400001}"#,
                "rules.json: hang_ms: \"86400001\" is out of range; expected a whole number from 0 to 86400000 ms"
            ),
            (#"{"mix": [{"answer": 503, "percent": 1e300}]}"#, "rules.json: mix[0].percent: \"1e300\" is out of range"),
            (#"{"mix": [{"answer": 999, "percent": 1}]}"#, "rules.json: mix[0].answer: \"999\" is out of range"),
            (#"{"fail_first": {"count": -1}}"#, "rules.json: fail_first.count: \"-1\" is out of range"),
            (#"{"mix": {"503": 10}}"#, "rules.json: mix: expected an array"),
            (#"{"mix": [{"answer": "teapot", "percent": 1}]}"#, "rules.json: mix[0].answer: expected a status"),
            (#"{"mix": [{"answer": 503}]}"#, "rules.json: mix[0].percent: expected a number from 0 to 100 %"),
            (#"{"mix": [{"answer": 503, "percent": 70}, {"answer": 500, "percent": 40}]}"#, "at most 100"),
            (#"{"fail_first": {"count": 2, "code": 503}}"#, "rules.json: fail_first.code: unknown field"),
            (#"{"require_token": "yes"}"#, "rules.json: require_token: expected true or false"),
            (#"{"tokens": "k"}"#, "rules.json: tokens: expected an array of strings"),
            (
                #"{"token_endpoint": {"expires_in": 1.5}}"#,
                "rules.json: token_endpoint.expires_in: \"1.5\" is not a whole number"
            ),
            (#"{"token_endpoint": {"path": "token"}}"#, "must start with /"),
            ("[1]", "rules.json: expected a JSON object"),
            ("{", "rules.json: not valid JSON"),
        ])
    func mistakes(rules: String, expected: String) {
        var configuration = IngestReceiverConfiguration()
        do {
            try configuration.applyRules(json: Array(rules.utf8), file: "rules.json")
            Issue.record("accepted \(rules)")
        } catch {
            #expect(error.kind == .rules)
            #expect(error.message.contains(expected), "\(error.message)")
        }
    }

    @Test("a missing rules file is named")
    func missingFile() {
        var configuration = IngestReceiverConfiguration()
        do {
            try configuration.applyRules(fromFile: "/nonexistent/rules.json")
            Issue.record("read a missing file")
        } catch {
            #expect(error.message.hasPrefix("/nonexistent/rules.json: cannot read"))
        }
    }
}
