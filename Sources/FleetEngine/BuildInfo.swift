/// What this build is, for `--version` and `/metrics`' `beekon_build_info`.
public enum BuildInfo {
    public static let version = "0.1.0"
}
