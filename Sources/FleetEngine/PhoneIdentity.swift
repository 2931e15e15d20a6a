import BeekonDevice

/// What phone a device is: the platform, model, OS release and SDK version it reports (which an
/// `upgrade` changes), and its place in its group.
struct PhoneIdentity {
    let indexInGroup: Int
    let platform: Platform
    let model: String
    let osVersion: OSVersion
    var sdkVersion: String
}
