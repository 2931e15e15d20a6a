import Testing

@testable import BeekonDevice

@Suite("Upload verdicts and retry timing")
struct UploadVerdictTests {
    @Test(
        "every row of seed 05's status table",
        arguments: [
            (200, UploadVerdict.accepted), (201, .accepted), (204, .accepted), (299, .accepted),
            (400, .rejected), (422, .rejected),
            (401, .auth), (403, .auth),
            (408, .transient), (429, .transient), (500, .transient), (502, .transient), (503, .transient),
            (599, .transient),
            (413, .permanent), (404, .permanent), (301, .permanent), (302, .permanent), (307, .permanent),
            (405, .permanent), (409, .permanent), (410, .permanent), (418, .permanent), (451, .permanent),
            (100, .permanent), (600, .permanent),
        ])
    func statusTable(status: Int, verdict: UploadVerdict) {
        #expect(UploadVerdict(status: status) == verdict)
    }

    @Test(
        "backoff is interval × 2^min(n, 4), capped at an hour",
        arguments: [
            (60, [60, 120, 240, 480, 960, 960, 960]),
            (300, [300, 600, 1200, 2400, 3600, 3600, 3600]),
            (3600, [3600, 3600, 3600, 3600, 3600, 3600, 3600]),
        ] as [(Int64, [Int64])])
    func backoff(intervalSeconds: Int64, expected: [Int64]) {
        let schedule = (0..<7).map {
            RetrySchedule.backoffMillis(intervalMillis: intervalSeconds * 1000, failures: $0) / 1000
        }
        #expect(schedule == expected)
    }

    @Test(
        "Retry-After is honoured only when it asks for longer than the backoff",
        arguments: [
            (Int64(120_000), Int64?(600_000), Int64(600_000)), (600_000, 120_000, 600_000), (120_000, nil, 120_000),
        ])
    func retryAfter(backoff: Int64, retryAfter: Int64?, expected: Int64) {
        #expect(RetrySchedule.retryDelayMillis(backoffMillis: backoff, retryAfterMillis: retryAfter) == expected)
    }

    @Test(
        "Retry-After reads delta-seconds and HTTP-dates",
        arguments: [
            ("120", Int64?(120_000)), (" 7 ", 7000), ("0", 0), ("-5", nil), ("soon", nil),
            ("Mon, 15 Jun 2026 12:35:56 GMT", 59_211), ("Mon, 15 Jun 2026 12:30:00 GMT", 0),
            ("Mon, 15 Jun 2026 12:35:56 PST", nil),
        ])
    func parsesRetryAfter(header: String, millis: Int64?) {
        #expect(RetrySchedule.retryAfterMillis(header, now: 1_781_526_896_789) == millis)
    }

    @Test(
        "a Retry-After HTTP-date is the delay it means on the server's clock, in whole seconds; other values stay",
        arguments: [
            ("Sat, 28 Nov 2026 18:02:00 GMT", "120"), ("Sat, 28 Nov 2026 18:00:00 GMT", "0"),
            ("Sat, 28 Nov 2026 17:00:00 GMT", "0"), (" Sat, 28 Nov 2026 18:00:01 GMT ", "1"),
            ("120", nil), ("soon", nil),
        ] as [(String, String?)])
    func retryAfterOnTheServersClock(header: String, delay: String?) {
        // The server's clock: 2026-11-28T18:00:00Z (its answer's `Date`).
        #expect(RetrySchedule.retryAfterDelay(header, serverNow: 1_795_888_800_000) == delay)
    }

    @Test(
        "interval floors: iOS 60 s; Android 60 s in the foreground, 15 min in the background",
        arguments: [
            (30, Platform.ios, false, Int64(60_000)), (30, .ios, true, 60_000), (300, .ios, true, 300_000),
            (30, .android, false, 60_000), (300, .android, false, 300_000), (300, .android, true, 900_000),
            (3600, .android, true, 3_600_000),
        ])
    func floors(interval: Int, platform: Platform, background: Bool, expected: Int64) {
        #expect(
            RetrySchedule.effectiveIntervalMillis(
                intervalSeconds: interval, platform: platform, inBackground: background) == expected)
    }

    @Test("the refresh circuit breaker opens after 3 failures: 60, 120, 240, 480, 960 s")
    func breaker() {
        let schedule = (0..<10).map { RetrySchedule.breakerMillis(failures: $0).map { $0 / 1000 } }
        #expect(schedule == [nil, nil, nil, 60, 120, 240, 480, 960, 960, 960])
    }
}
