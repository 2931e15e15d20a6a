import BeekonDevice

/// Decides how each well-formed upload and each token request is answered, from the script and
/// what came before: a state machine with no I/O, so the script is testable without a server.
struct AnswerPlanner {
    /// What to do with one well-formed upload.
    struct UploadPlan: Sendable, Hashable {
        /// Nil: store and answer 200. Otherwise the scripted outcome.
        var outcome: ScriptedOutcome?
        /// Whether to store the upload (normal answers, scripted 2xx, or `storeBeforeFault`).
        var store: Bool
    }

    /// What to do with one token request.
    enum TokenPlan: Sendable, Hashable {
        /// Issue a token pair.
        case issue
        /// Answer 200 without an access token.
        case omitToken
        /// Answer this status with no token.
        case fail(Int)
    }

    let script: AnswerScript
    let tokens: TokenScript
    private var generator: SplitMix64
    /// Well-formed uploads seen per `install_id`.
    private var uploadsByDevice: [String: Int] = [:]
    /// Token requests seen.
    private var tokenRequests = 0

    init(script: AnswerScript, tokens: TokenScript) {
        self.script = script
        self.tokens = tokens
        generator = SplitMix64(seed: script.seed)
    }

    /// The plan for the next well-formed upload from `installID`.
    mutating func planUpload(installID: String) -> UploadPlan {
        let number = uploadsByDevice[installID, default: 0] + 1
        uploadsByDevice[installID] = number
        // Every upload draws, so the sequence of draws depends only on the arrival order.
        let roll = Double(generator.next() >> 11) / Double(1 << 53) * 100
        var outcome: ScriptedOutcome?
        if number <= script.failFirst {
            outcome = script.failFirstOutcome ?? .status(script.failFirstStatus)
        } else {
            var threshold = 0.0
            for entry in script.mix {
                threshold += entry.percent
                if roll < threshold {
                    outcome = entry.outcome
                    break
                }
            }
        }
        let store: Bool
        switch outcome {
        case nil: store = true
        case .status(let status) where (200..<300).contains(status): store = true
        default: store = script.storeBeforeFault
        }
        return UploadPlan(outcome: outcome, store: store)
    }

    /// The plan for the next token request.
    mutating func planToken() -> TokenPlan {
        tokenRequests += 1
        if let status = tokens.failStatus, tokenRequests <= tokens.failFirst ?? Int.max {
            return .fail(status)
        }
        return tokens.omitToken ? .omitToken : .issue
    }
}
