import BeekonDevice

/// What phone a device is: the platform, model, OS release and SDK version it reports, and its
/// place in its group.
struct PhoneIdentity {
    let indexInGroup: Int
    let platform: Platform
    let model: String
    let osVersion: OSVersion
    let sdkVersion: String
}
