import BeekonStore

/// A device's store and how it fares.
package struct SlotStorage {
    package let store: any DeviceStorage
    /// The app process (`PhoneOS.life`) this store's install began in: a batch an earlier
    /// process sent belongs to a former install's store, wiped by a reinstall.
    var installedAtLife = 0
    /// The store's failure while it lasts (the device is listed as `storeError`).
    var problem: StoreProblem?
    /// The latest instant it acted at: a commit that fails tells it then.
    var actedAt: Int64 = 0
    /// Its store's ledger as the fleet's accounts last counted it (nil before the store opened).
    var ledger: FixLedger?
}
