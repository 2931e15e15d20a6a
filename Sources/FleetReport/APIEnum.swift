/// A string of a fixed set: its schema lists every case.
package protocol APIEnum: APIDescribed, Encodable, CaseIterable, RawRepresentable where RawValue == String {}
