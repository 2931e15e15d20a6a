import FleetReport

/// Derives a request's members from what its `init(from:)` asks for: each key in order with the
/// schema of the type asked (`APIDescribed`), nullable, since null is as absent. Every member
/// is answered absent, so the whole body is walked.
struct APIRequestRecorder: Decoder {
    let record: Record

    /// The members, as the response recorder records them (which shapes need which is `forms`').
    typealias Record = APISchemaRecorder.Record

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(record: record))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw APIError.badRequest("not an object") }
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw APIError.badRequest("not an object")
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let record: Record
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { false }
        func decodeNil(forKey key: Key) -> Bool { true }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            record.add(key.stringValue, type, nullable: true)
            throw APIError.badRequest("a request member is optional: `\(key.stringValue)`")
        }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) -> T? {
            record.add(key.stringValue, type, nullable: true)
            return nil
        }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) -> String? {
            record.add(key.stringValue, type, nullable: true)
            return nil
        }
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) -> Bool? {
            record.add(key.stringValue, type, nullable: true)
            return nil
        }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            throw APIError.badRequest("not read here")
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw APIError.badRequest("not read here")
        }
        func superDecoder() -> any Decoder { APIRequestRecorder(record: record) }
        func superDecoder(forKey key: Key) -> any Decoder { APIRequestRecorder(record: Record()) }
    }
}
