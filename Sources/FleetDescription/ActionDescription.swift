/// What an action does and takes, for every reader and every document.
public struct ActionDescription: Sendable {
    public let name: FleetAction.Name
    /// What happens to the devices it picks.
    public let summary: String
    /// Its `params`, in the order documents list them.
    public let parameters: [ActionParameter]
    /// What a timeline fault's `for` means for it.
    public let ending: Ending
    /// The action from the values a reader found (by parameter name); nil when one it needs is missing.
    let make: @Sendable ([String: ActionParameter.Value]) -> FleetAction?
    /// The values `make` takes back, for an action of this name (only those given).
    let values: @Sendable (FleetAction) -> [String: ActionParameter.Value]

    /// An action that takes parameters: how to make it from their values, and read them back.
    init(
        name: FleetAction.Name, summary: String, parameters: [ActionParameter], ending: Ending,
        make: @escaping @Sendable ([String: ActionParameter.Value]) -> FleetAction?,
        values: @escaping @Sendable (FleetAction) -> [String: ActionParameter.Value]
    ) {
        self.name = name
        self.summary = summary
        self.parameters = parameters
        self.ending = ending
        self.make = make
        self.values = values
    }

    /// An action that takes none.
    init(_ action: FleetAction, summary: String, ending: Ending) {
        self.init(
            name: action.name, summary: summary, parameters: [], ending: ending, make: { _ in action },
            values: { _ in [:] })
    }

    /// How an action ends.
    public enum Ending: Sendable, Equatable {
        /// It does not last: `for` means nothing.
        case never
        /// After `for`, this action runs on the same devices.
        case undoneBy(FleetAction)
        /// `for` is how long the device takes to recover (default 5 s).
        case recovers
        /// `for` is the relaunch delay (as `relaunchAfterSeconds`, which it takes before).
        case relaunches
        /// It ends by itself after `for` (as `forSeconds`, which it takes before; default a minute).
        case lapses

        /// The action `undoneBy` names; nil for the others.
        public var undoing: FleetAction? {
            if case .undoneBy(let opposite) = self { return opposite }
            return nil
        }
    }

    /// Whether a timeline fault may give it a `for`.
    public var lasts: Bool { ending != .never }

}
