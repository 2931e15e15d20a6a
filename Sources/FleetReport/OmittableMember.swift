/// What the encoder and the schema recorder ask of an `Omittable` whatever it wraps.
package protocol OmittableMember {
    var isAbsent: Bool { get }
    static var wrappedSchema: APISchema { get }
}
