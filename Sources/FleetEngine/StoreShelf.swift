/// Where the engine's device stores come from: the driver's side of `DeviceStorage`.
package protocol StoreShelf: AnyObject {
    /// The store of the device with `installID` (opened on first use, so making one is cheap).
    func store(installID: String, syncEnabled: Bool) -> any DeviceStorage
    /// Closes every open store (the run is over).
    func closeAll()
}
