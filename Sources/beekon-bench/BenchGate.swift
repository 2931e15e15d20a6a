import ArgumentParser

/// Which gate the bench fleet's devices use.
enum BenchGate: String, ExpressibleByArgument, CaseIterable {
    /// Admit each OS fix (one a virtual second): the upload path gets all the load.
    case everyFix = "every-fix"
    /// The precision preset's own gate (10 s and 30 m), the load of a real fleet.
    case preset
}
