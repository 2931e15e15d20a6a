import FleetDescription
import FleetReport

/// The admin API's descriptions as the server serves them, for the command line.
public enum AdminDocuments {
    /// The OpenAPI document (`GET /api/v1/openapi.yaml`); nil when `docs/openapi.yaml` is not
    /// found (`web`: the page's folder, as `--web` gives it).
    public static func openAPI(web: String? = nil) -> String? {
        WebFiles.locate(web: web).openAPI().map { String(decoding: $0.body, as: UTF8.self) }
    }

    /// `GET /api/v1/actions`: every action, its parameters and the selectors, as JSON.
    public static var actionCatalog: String { String(decoding: ActionCatalogBody.document, as: UTF8.self) }

    /// Every action as a Markdown table (docs/fleet-file.md carries it, `actions --markdown`):
    /// its name, what happens, what its `for` means and its `params`.
    public static var actionTable: String {
        var rows = ["| action | what happens | `for` | `params` |", "|---|---|---|---|"]
        for name in FleetAction.Name.allCases {
            let action = name.details
            let lasts =
                switch action.ending {
                case .never: "no"
                case .undoneBy(let opposite): "then `\(opposite.name.rawValue)`" + undoParams(opposite)
                default: forMeaning(action.ending) ?? ""
                }
            let params = action.parameters.map { parameter in
                let need = parameter.required ? "" : ", optional"
                return "`\(parameter.name)`: \(parameter.summary) (\(parameter.jsonType.rawValue)"
                    + "\(valuesText(parameter, choicesJoinedBy: ", "))\(need)), e.g. `\(parameter.example)`"
            }
            let cells = ["`\(name.rawValue)`", action.summary, lasts, params.joined(separator: "; ")]
            rows.append(
                "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |")
        }
        return rows.joined(separator: "\n") + "\n"
    }

    /// What a lasting action's `for` is, for one that does not end by its opposite.
    public static func forMeaning(_ ending: ActionDescription.Ending) -> String? {
        switch ending {
        case .never, .undoneBy: nil
        case .recovers: "the recovery time (default 5 s)"
        case .relaunches: "the relaunch delay"
        case .lapses: "how long it lasts (default 60 s)"
        }
    }

    /// `, RANGE` or `, one of A…` for a parameter that has either; "" otherwise.
    public static func valuesText(_ parameter: ActionParameter, choicesJoinedBy separator: String) -> String {
        parameter.range.map { ", \($0)" } ?? parameter.choices.map { ", one of \($0.joined(separator: separator))" }
            ?? ""
    }

    /// ` with {params}` for an action that has some.
    private static func undoParams(_ action: FleetAction) -> String {
        let params = APIJSON.bytes(ActionRequestBody.Params(action: action), capacity: 64)
        return params.count > 2 ? " with `\(String(decoding: params, as: UTF8.self))`" : ""
    }

    /// `{"action", "params"}` as a request sends `action`.
    public static func request(_ action: FleetAction) -> String {
        String(decoding: APIJSON.bytes(ActionRequestBody(action), capacity: 128), as: UTF8.self)
    }
}
