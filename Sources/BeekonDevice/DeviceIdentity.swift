/// The `device` object of an upload: constant per install.
public struct DeviceIdentity: Sendable, Hashable, Codable {
    /// UUIDv7 text, stable per app install; omitted from the payload when blank.
    public var installID: String
    /// `ios` or `android`; omitted when nil.
    public var platform: Platform?
    /// The emulated SDK version; omitted when blank.
    public var sdkVersion: String
    /// The phone model (e.g. `iPhone15,3`, `Pixel 8`); omitted when blank.
    public var model: String

    /// An identity from its four wire fields.
    public init(installID: String, platform: Platform?, sdkVersion: String = "0.1.1", model: String = "") {
        self.installID = installID
        self.platform = platform
        self.sdkVersion = sdkVersion
        self.model = model
    }
}
