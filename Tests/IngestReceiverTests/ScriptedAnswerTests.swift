import BeekonNet
import FleetTestSupport
import Foundation
import HTTPMessage
import HTTPTypes
import Synchronization
import Testing

@testable import IngestReceiver

/// Scripted answers: the planner alone, then each behaviour over HTTP.
@Suite("Scripted answers")
struct ScriptedAnswerTests {
    @Test(
        "the status mix follows its percentages and the same seed gives the same answers",
        arguments: [1, 42, 9001] as [UInt64])
    func mixProportions(seed: UInt64) {
        let script = AnswerScript(
            seed: seed,
            mix: [
                MixEntry(.status(503), percent: 20), MixEntry(.status(429), percent: 10), MixEntry(.close, percent: 5),
            ])
        func run() -> [ScriptedOutcome?] {
            var planner = AnswerPlanner(script: script, tokens: TokenScript())
            return (0..<10_000).map { _ in planner.planUpload(installID: "d").outcome }
        }
        let outcomes = run()
        #expect(outcomes == run())
        let share = { (outcome: ScriptedOutcome?) in Double(outcomes.filter { $0 == outcome }.count) / 100 }
        #expect(abs(share(.status(503)) - 20) < 2)
        #expect(abs(share(.status(429)) - 10) < 1.5)
        #expect(abs(share(.close) - 5) < 1)
        #expect(abs(share(nil) - 65) < 2.5)
        var other = AnswerPlanner(script: AnswerScript(seed: seed &+ 1, mix: script.mix), tokens: TokenScript())
        #expect(outcomes != (0..<10_000).map { _ in other.planUpload(installID: "d").outcome })
    }

    @Test("the mix parses from its flag form and refuses a bad item")
    func parseMix() throws {
        #expect(
            try AnswerScript.parseMix("503:10, 429:5,hang:1,close:0.5")
                == [
                    MixEntry(.status(503), percent: 10), MixEntry(.status(429), percent: 5),
                    MixEntry(.hang, percent: 1),
                    MixEntry(.close, percent: 0.5),
                ])
        #expect(throws: IngestReceiverError.self) { try AnswerScript.parseMix("503=10") }
        #expect(throws: IngestReceiverError.self) { try AnswerScript.parseMix("teapot:10") }
    }

    @Test("over HTTP, a seeded mix answers the same sequence twice and stores only the 2xx uploads")
    func mixOverHTTP() async throws {
        func statuses() async throws -> (statuses: [Int], stored: Int) {
            let harness = try ReceiverHarness {
                $0.script = AnswerScript(
                    seed: 7, mix: [MixEntry(.status(503), percent: 40), MixEntry(.status(202), percent: 10)])
            }
            var statuses: [Int] = []
            for _ in 0..<60 {
                statuses.append(try await harness.upload(harness.payload(fixes: 1).json).status ?? 0)
            }
            return (statuses, try harness.count("SELECT count(*) FROM batches"))
        }
        let first = try await statuses()
        let second = try await statuses()
        #expect(first.statuses == second.statuses)
        #expect(Set(first.statuses) == [200, 202, 503])
        #expect(first.stored == first.statuses.filter { $0 != 503 }.count)
    }

    @Test("the first N uploads of each device fail with the given status and Retry-After")
    func failFirst() async throws {
        let harness = try ReceiverHarness {
            $0.script = AnswerScript(failFirst: 2, failFirstStatus: 429, retryAfter: "17")
        }
        for device in [harness.newID(), harness.newID()] {
            var statuses: [Int] = []
            for _ in 0..<3 {
                let result = try await harness.upload(harness.payload(device: device).json, device: device)
                statuses.append(result.status ?? 0)
                if result.status == 429 {
                    #expect(result.header("Retry-After") == "17")
                } else {
                    #expect(result.header("Retry-After") == nil)
                }
            }
            #expect(statuses == [429, 429, 200])
        }
        #expect(try harness.count("SELECT count(*) FROM batches") == 2)
    }

    @Test("a fault after the commit stores the upload even though the client sees a failure")
    func storeBeforeFault() async throws {
        let harness = try ReceiverHarness {
            $0.script = AnswerScript(mix: [MixEntry(.status(503), percent: 100)], storeBeforeFault: true)
        }
        let payload = harness.payload(fixes: 4)
        #expect(try await harness.upload(payload.json).status == 503)
        #expect(try harness.count("SELECT count(*) FROM locations") == 4)
    }

    @Test("added latency delays the answer without holding up other connections")
    func latency() async throws {
        // Ten seconds: however loaded the machine, the stats come back first unless they waited.
        let harness = try ReceiverHarness {
            $0.script = AnswerScript(latencyMillis: 10_000)
            $0.threads = 1
        }
        let clock = ContinuousClock()
        let start = clock.now
        let slowAnswered = Mutex(false)
        let slow = Task {
            let result = try await harness.upload(harness.payload().json, timeoutMillis: 60_000, device: "slow")
            slowAnswered.withLock { $0 = true }
            return result
        }
        try await Task.sleep(for: .milliseconds(100))
        _ = try await harness.statsJSON()
        // Ordered, not timed: the stats came back while the delayed upload was still held.
        let statsWaitedForSlow = slowAnswered.withLock { $0 }
        let result = try await slow.value
        #expect(result.status == 200)
        #expect(clock.now - start >= .milliseconds(10_000))
        #expect(!statsWaitedForSlow, "stats waited behind a delayed answer")
    }

    @Test("a hang holds the connection until the client times out, while others are answered")
    func hang() async throws {
        let harness = try ReceiverHarness {
            $0.script = AnswerScript(mix: [MixEntry(.hang, percent: 100)], hangMillis: 5000)
            $0.threads = 1
        }
        async let hung = harness.upload(harness.payload().json, timeoutMillis: 1000, device: "hung")
        try await Task.sleep(for: .milliseconds(200))
        _ = try await harness.statsJSON()
        guard case .failed(let kind, _, let latency) = try await hung else {
            Issue.record("the hung upload was answered")
            return
        }
        #expect(kind == .timeout)
        #expect(latency >= 900)
        #expect(harness.receiver.stats().hung == 1)
        #expect(try harness.count("SELECT count(*) FROM batches") == 0)
    }

    @Test("stopping the receiver releases hung connections: the client sees its connection end, not its own timeout")
    func stopReleasesHangs() async throws {
        let harness = try ReceiverHarness {
            $0.script = AnswerScript(mix: [MixEntry(.hang, percent: 100)], hangMillis: 60_000)
        }
        async let hung = harness.upload(harness.payload().json, timeoutMillis: 60_000, device: "hung")
        while harness.receiver.stats().hung == 0 { try await Task.sleep(for: .milliseconds(20)) }
        harness.receiver.stop()
        let result = try await hung
        #expect(result.status == nil)
        guard case .failed(let kind, let message, _) = result else { return }
        #expect(kind != .timeout, "the client gave up first: \(message)")
    }

    @Test("close drops the connection without an answer: the client sees a reset")
    func close() async throws {
        let harness = try ReceiverHarness { $0.script = AnswerScript(mix: [MixEntry(.close, percent: 100)]) }
        guard case .failed(let kind, let message, _) = try await harness.upload(harness.payload().json) else {
            Issue.record("the upload was answered")
            return
        }
        #expect(kind == .reset, "\(message)")
        #expect(harness.receiver.stats().closedWithoutAnswer == 1)
    }

    @Test("with a required token, uploads without a valid one get 401; configured and issued tokens pass")
    func tokenCheck() async throws {
        let harness = try ReceiverHarness {
            $0.auth = AuthScript(requireToken: true, tokens: ["static-key"])
            // Long enough to be used once on a busy machine (the whole suite runs beside it).
            $0.tokenEndpoint.expiresIn = 4
        }
        let missing = try await harness.upload(harness.payload().json)
        #expect(missing.status == 401)
        #expect(missing.header("WWW-Authenticate") == "Bearer")
        #expect(missing.reason.contains("missing"))
        let wrong = try await harness.upload(harness.payload().json, headers: [("Authorization", "Bearer forged")])
        #expect(wrong.status == 401)
        #expect(
            try await harness.upload(harness.payload().json, headers: [("Authorization", "Bearer static-key")]).status
                == 200)
        // The SDK's raw strategy sends the token alone.
        #expect(
            try await harness.upload(harness.payload().json, headers: [("Authorization", "static-key")]).status == 200)
        let token = await harness.send(
            OutboundRequest(url: harness.receiver.tokenURL!, body: Array("refresh_token=seed".utf8), connectionKey: "t")
        )
        let access = try #require(token.json["access_token"] as? String)
        #expect(
            try await harness.upload(harness.payload().json, headers: [("Authorization", "Bearer \(access)")]).status
                == 200)
        try await Task.sleep(for: .milliseconds(4100))
        let expired = try await harness.upload(harness.payload().json, headers: [("Authorization", "Bearer \(access)")])
        #expect(expired.status == 401)
        #expect(expired.reason.contains("expired"))
        #expect(harness.receiver.stats().unauthorizedUploads == 3)
        #expect(try harness.count("SELECT count(*) FROM batches") == 3)
    }
}
