import BeekonStore

// The figures the admin API and the run report both show, one type each: the API writes them in
// camelCase, the report in snake_case (`APIKeyStyle`, the encoder's choice). Where the report
// describes a figure in its own words, `summary(_:)` and `notes(_:)` give them for its style.

/// A store's ledger: where a device's admitted fixes went, as its store counts them over its whole
/// life (a device's `fixes`), and the middle of a run's account (`FixesBody`). The store's own type.
extension FixLedger: APIBody {
    package static let example = FixLedger()
    package static let summary: String? =
        "The device store's own ledger, over its whole life (every run on this data folder): admitted = "
        + "acknowledged + rejected + pending + expired + deleted + lost + uninstalled. Null before the store was first "
        + "opened."
}
