import BeekonNet
import FleetEngine
import Foundation

/// A run's record as its report's `merge_state` carries it, and read back from a report file for
/// `report merge`.
extension RunRecord {
    /// The most JSON a `merge_state` may inflate to: 512 MiB (the request digest of 1,000,000
    /// devices is about 50 MB), so a hostile file cannot exhaust memory.
    static let maxStateBytes = 512 << 20

    /// JSON, gzipped, in base64 (the digest of every device's requests and the histograms make it
    /// large, and repetitive).
    package func mergeStateText() throws(RunRecordProblem) -> String {
        do {
            let json = try Self.encoder.encode(self)
            return Data(try GzipCompressor().compress([UInt8](json))).base64EncodedString()
        } catch {
            throw RunRecordProblem("the run's merge state cannot be encoded: \(error)")
        }
    }

    /// The record in the report `text` (the contents of `file`, named in every problem).
    package static func read(report text: Data, file: String) throws(RunRecordProblem) -> RunRecord {
        struct Stored: Decodable {
            var mergeState: String?
            var exitCode: Int?

            enum CodingKeys: String, CodingKey {
                case mergeState = "merge_state"
                case exitCode = "exit_code"
            }
        }
        let stored: Stored
        do {
            stored = try JSONDecoder().decode(Stored.self, from: text)
        } catch {
            throw RunRecordProblem("\(file): not a run's report (\(Self.reason(error)))")
        }
        guard let state = stored.mergeState else {
            throw RunRecordProblem(
                "\(file): has no merge_state (the run's exact figures, which `report merge` and `report compare` "
                    + "read): "
                    + (stored.exitCode == nil
                        ? "a live report (GET /api/v1/report) has none; `run --report FILE` writes it at the run's end"
                        : "it was written by a build before `report merge`; run it again"))
        }
        guard let zipped = Data(base64Encoded: state) else {
            throw RunRecordProblem("\(file): merge_state is not base64")
        }
        let json: [UInt8]
        do {
            json = try GzipDecompressor(maxOutputBytes: maxStateBytes).decompress([UInt8](zipped))
        } catch {
            throw RunRecordProblem("\(file): merge_state is not gzip within \(maxStateBytes >> 20) MiB (\(error))")
        }
        let record: RunRecord
        do {
            record = try decoder.decode(RunRecord.self, from: Data(json))
        } catch {
            // The format first: another build's record fails on a member before its format is read.
            if let format = try? JSONDecoder().decode(FormatOnly.self, from: Data(json)).format,
                format != currentFormat
            {
                throw RunRecordProblem(
                    "\(file): merge_state has format \(format); this build reads format \(currentFormat) "
                        + "(merge or compare reports with the build that wrote them, or run it again with this one)")
            }
            throw RunRecordProblem("\(file): merge_state cannot be read (\(Self.reason(error)))")
        }
        guard record.format == currentFormat else {
            throw RunRecordProblem(
                "\(file): merge_state has format \(record.format); this build reads format \(currentFormat)")
        }
        return record
    }

    private struct FormatOnly: Decodable {
        var format: Int
    }

    /// Metrics may hold a non-finite figure (none does today; a JSON number cannot say one).
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }()

    /// A decoding error in a line: where, and what.
    private static func reason(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return path(context)
        case .keyNotFound(let key, let context):
            return path(context) + " (missing \(key.stringValue))"
        @unknown default:
            return "\(error)"
        }
    }
}
