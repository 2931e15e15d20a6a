import BeekonDevice

extension IngestReceiverConfiguration {
    /// The documented range of every numeric setting, the one check the `receive` flags, the
    /// rules file and `checked()` apply (docs/receiver.md lists them).
    public enum Ranges {
        /// `--max-body-bytes`: a request body as received.
        public static let maxBodyBytes = NumberRange.integer(1024...(1 << 30), unit: "bytes")
        /// `--max-inflated-bytes`: a body after gunzip.
        public static let maxInflatedBytes = NumberRange.integer(1024...(1 << 30), unit: "bytes")
        /// `--max-json-depth`: the payload needs 3.
        public static let maxJSONDepth = NumberRange.integer(3...1000, unit: "levels")
        /// `--max-json-elements`: values in one body.
        public static let maxJSONElements = NumberRange.integer(16...100_000_000, unit: "values")
        /// `--memory-budget-bytes`: request bytes held at once across all connections.
        public static let memoryBudgetBytes = NumberRange.integer(1024...(1 << 40), unit: "bytes")
        /// `--connection-timeout`: idle seconds before a connection is closed.
        public static let connectionTimeoutSeconds = NumberRange.integer(1...3600, unit: "s")
        /// `--connection-limit`: connections open at once.
        public static let connectionLimit = NumberRange.integer(1...1_000_000, unit: "connections")
        /// `--per-ip-connection-limit`: connections from one address; 0 turns the cap off.
        public static let perIPConnectionLimit = NumberRange.integer(0...1_000_000, unit: "connections")
        /// `--threads`.
        public static let threads = NumberRange.integer(1...256, unit: "threads")
        /// An HTTP status (`--fail-status`, `--token-fail-status`, `mix` answers).
        public static let status = NumberRange.integer(100...599)
        /// A count of requests (`--fail-first`, `--token-fail-first`).
        public static let count = NumberRange.integer(0...1_000_000_000, unit: "requests")
        /// `--latency-ms`: up to an hour.
        public static let latencyMillis = NumberRange.integer(0...3_600_000, unit: "ms")
        /// `--hang-ms`: up to a day.
        public static let hangMillis = NumberRange.integer(0...86_400_000, unit: "ms")
        /// `--token-expires-in`: up to a year.
        public static let expiresIn = NumberRange.integer(1...31_536_000, unit: "s")
        /// A numeric `Retry-After` (`--retry-after`, `retry_after`), seconds: up to a day.
        public static let retryAfter = NumberRange.integer(0...86_400, unit: "s")
        /// A `mix` entry's percentage.
        public static let percent = NumberRange(0...100, unit: "%")
        /// The rules file's `seed` (the `--seed` flag takes any 64-bit value).
        public static let seed = NumberRange.integer(0...999_999_999_999_999)
    }
}
