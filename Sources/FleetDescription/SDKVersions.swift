/// The SDK version devices report when their group names none: the SDK's own (spec §1).
public enum SDKVersions {
    public static let `default` = ["0.1.1"]
}
