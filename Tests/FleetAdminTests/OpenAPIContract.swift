import Foundation
import Yams

@testable import FleetAdmin

/// The OpenAPI document the admin serves (`GET /api/v1/openapi.yaml`: docs/openapi.yaml with
/// the generated action schemas), and what it says of one exchange. `AdminHarness.call` checks
/// every answer the tests get against it, so each test is also a test of the document.
struct OpenAPIContract: Sendable {
    let document: JSONValue
    let schemas: SchemaValidator

    /// The served document, read once; a failure to read it fails every checked exchange.
    static let served = Result { () throws -> OpenAPIContract in
        guard let text = AdminDocuments.openAPI() else { throw ContractError("docs/openapi.yaml was not found") }
        return try OpenAPIContract(yaml: text)
    }

    struct ContractError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Where one exchange departs from the served document (`served`); empty when the document
    /// describes it all. `bodyRead`: false when only the answer's head arrived (its body is not checked then).
    static func problems(
        _ method: String, _ target: String, request: (headers: [(name: String, value: String)], body: String?),
        answer: AdminHarness.Answer, bodyRead: Bool = true
    ) -> [String] {
        switch served {
        case .success(let contract):
            contract.problems(method, target, request: request, answer: answer, bodyRead: bodyRead)
        case .failure(let error): ["the served OpenAPI document cannot be read: \(error)"]
        }
    }

    /// Where the complete events of a live stream depart from the schemas the document names for
    /// them (`EventPublisher.Event`): an unknown event, or a `data` line off its schema.
    static func eventProblems(_ stream: String) -> [String] {
        guard case .success(let contract) = served else { return [] }
        var problems: [String] = []
        // The last block may be cut short by the reader: only those a blank line closed count.
        for block in stream.components(separatedBy: "\n\n").dropLast() {
            let lines = block.split(separator: "\n")
            guard let name = lines.first(where: { $0.hasPrefix("event: ") })?.dropFirst(7) else { continue }
            guard let event = EventPublisher.Event(rawValue: String(name)) else {
                problems.append("event \(name) is not one the document describes")
                continue
            }
            let data = lines.filter { $0.hasPrefix("data: ") }.map { $0.dropFirst(6) }.joined(separator: "\n")
            do throws(JSONValue.SyntaxError) {
                let value = try JSONValue.parse(Array(data.utf8))
                let reference = JSONValue.object([
                    ("$ref", .string("#/components/schemas/\(event.body.component ?? "?")"))
                ])
                problems += contract.schemas.problems(value, reference, at: "event \(name)")
            } catch {
                problems.append("event \(name)'s data is not JSON: \(error.message)")
            }
        }
        return problems
    }

    init(yaml: String) throws {
        guard let node = try Yams.compose(yaml: yaml) else { throw ContractError("the document is empty") }
        document = try Self.json(node)
        schemas = SchemaValidator(document: document)
    }

    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// The document's operations as `(METHOD, path template, operationId)`.
    var operations: [(method: String, path: String, operationID: String)] {
        guard case .object(let paths)? = document["paths"] else { return [] }
        return paths.flatMap { path, item in
            Self.methods.compactMap { method in
                item[method].map { (method.uppercased(), path, $0["operationId"].flatMap(\.string) ?? "?") }
            }
        }
    }

    /// The document's path template that `path` is an instance of, and its path item; a template
    /// without parameters wins over one with (`/` over `/{file}`), as OpenAPI matches paths.
    func pathItem(_ path: String) -> (template: String, item: JSONValue)? {
        guard case .object(let paths)? = document["paths"] else { return nil }
        let parts = AdminRoute.split(path)
        var best: (template: String, item: JSONValue, parameters: Int)?
        for (template, item) in paths {
            let segments = AdminRoute.split(template)
            guard segments.count == parts.count else { continue }
            var parameters = 0
            let fits = zip(segments, parts).allSatisfy { segment, part in
                guard segment.hasPrefix("{") && segment.hasSuffix("}") else { return segment == part }
                parameters += 1
                return true
            }
            if fits, parameters < best?.parameters ?? .max { best = (template, item, parameters) }
        }
        return best.map { ($0.template, $0.item) }
    }

    func problems(
        _ method: String, _ target: String, request: (headers: [(name: String, value: String)], body: String?),
        answer: AdminHarness.Answer, bodyRead: Bool = true
    ) -> [String] {
        let components = URLComponents(string: "http://admin" + target)
        let path = components?.percentEncodedPath ?? target
        let label = "\(method) \(target.prefix(120)) answered \(answer.status)"
        return exchangeProblems(method, path, components?.queryItems ?? [], request, answer, bodyRead: bodyRead).map {
            "\(label): \($0)"
        }
    }

    private func exchangeProblems(
        _ method: String, _ path: String, _ query: [URLQueryItem],
        _ request: (headers: [(name: String, value: String)], body: String?), _ answer: AdminHarness.Answer,
        bodyRead: Bool
    ) -> [String] {
        // A HEAD answer has no body to check, nor one whose head alone arrived.
        let bodyless = method == "HEAD" || !bodyRead
        guard let (template, item) = pathItem(path) else {
            // No path of the document: an error, 404 or a check that comes before routing.
            let status = (400..<500).contains(answer.status) ? [] : ["a path the document does not have, not an error"]
            return status + response(Self.errorResponse, answer, bodyless: bodyless)
        }
        // HEAD is GET without the body, or 405 where GET is a stream.
        let name = method == "HEAD" && answer.status != 405 ? "get" : method.lowercased()
        guard Self.methods.contains(name), let operation = item[name] else {
            return undocumentedMethod(item, template, answer, bodyless: bodyless)
        }
        let id = operation["operationId"].flatMap(\.string) ?? "\(method) \(template)"
        guard let documented = operation["responses"]?[String(answer.status)] else {
            return ["\(answer.status) is not a response of \(id)"]
        }
        var problems = response(documented, answer, bodyless: bodyless)
        if (200..<300).contains(answer.status) {
            problems += requestProblems(operation, item, query, request)
        }
        return problems.map { "\(id): \($0)" }
    }

    /// An Error body, for answers no operation documents (405, and paths the document lacks).
    private static let errorResponse = try! JSONValue.parse(
        Array(##"{"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}"##.utf8))

    /// A method the path does not document: 405 with Allow naming the documented ones, or an
    /// error one of the path's operations documents (a check before the method: Host, token, the
    /// device the path names).
    private func undocumentedMethod(_ item: JSONValue, _ path: String, _ answer: AdminHarness.Answer, bodyless: Bool)
        -> [String]
    {
        let documented = Self.methods.filter { item[$0] != nil }
        guard answer.status != 405 else {
            let allow = answer.headers.first { $0.name.lowercased() == "allow" }?.value ?? ""
            let allowed = Set(allow.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
            let problems = allowed == Set(documented) ? [] : ["Allow \"\(allow)\" is not \(documented) of \(path)"]
            return problems + response(Self.errorResponse, answer, bodyless: bodyless)
        }
        for method in documented {
            if let documented = item[method]?["responses"]?[String(answer.status)], answer.status >= 400 {
                return response(documented, answer, bodyless: bodyless)
            }
        }
        return ["neither 405 nor an error any operation of \(path) documents"]
    }

    /// The answer against one documented response: Content-Type, and the body against its schema.
    private func response(_ documented: JSONValue, _ answer: AdminHarness.Answer, bodyless: Bool) -> [String] {
        let documented = resolved(documented)
        let contentType = answer.headers.first { $0.name.lowercased() == "content-type" }?.value ?? ""
        guard case .object(let types)? = documented["content"], !types.isEmpty else {
            return answer.body.isEmpty ? [] : ["a body where the document has none"]
        }
        let mediaType = Self.mediaType(contentType)
        guard let (documentedType, content) = types.first(where: { Self.instance(mediaType, of: $0.key) }) else {
            return ["Content-Type \"\(contentType)\" is not one of \(types.map(\.key))"]
        }
        // An event stream's schema is one event, not the stream.
        guard !bodyless, let schema = content["schema"], documentedType != "text/event-stream" else { return [] }
        let value: JSONValue
        switch documentedType {
        case "application/json":
            do throws(JSONValue.SyntaxError) {
                value = try JSONValue.parse(answer.body)
            } catch {
                return ["the body is not JSON: \(error.message)"]
            }
        case "application/yaml":
            do {
                guard let node = try Yams.compose(yaml: answer.text) else { return ["the body is empty YAML"] }
                value = try Self.json(node)
            } catch {
                return ["the body is not YAML: \(error)"]
            }
        case let type where type.hasPrefix("text/"):
            value = .string(answer.text)
        default:
            return []  // Bytes: nothing in them to check.
        }
        return schemas.problems(value, schema, at: "body")
    }

    /// A request the server took: its body and its query arguments as the operation documents them.
    private func requestProblems(
        _ operation: JSONValue, _ item: JSONValue, _ query: [URLQueryItem],
        _ request: (headers: [(name: String, value: String)], body: String?)
    ) -> [String] {
        var problems: [String] = []
        let documentedBody = operation["requestBody"].map(resolved)
        if let body = request.body {
            let contentType = request.headers.last { $0.name.lowercased() == "content-type" }?.value ?? ""
            if case .object(let types)? = documentedBody?["content"],
                let content = types.first(where: { Self.instance(Self.mediaType(contentType), of: $0.key) })?.value
            {
                do throws(JSONValue.SyntaxError) {
                    let value = try JSONValue.parse(Array(body.utf8))
                    problems += content["schema"].map { schemas.problems(value, $0, at: "request body") } ?? []
                } catch {
                    problems.append("the request body it took is not JSON: \(error.message)")
                }
            } else {
                problems.append("it took a body sent as \"\(contentType)\", which the operation does not document")
            }
        } else if documentedBody?["required"] == .bool(true) {
            problems.append("it took no body, which the operation requires")
        }
        let parameters = [item["parameters"], operation["parameters"]].flatMap { list -> [JSONValue] in
            guard case .array(let entries)? = list else { return [] }
            return entries.map(resolved)
        }
        let queryParameters = parameters.filter { $0["in"] == .string("query") }
        for argument in query {
            guard let parameter = queryParameters.last(where: { $0["name"] == .string(argument.name) }) else {
                problems.append("it took the query argument `\(argument.name)`, which the operation does not document")
                continue
            }
            // The document's rule: an empty argument counts as absent.
            guard let text = argument.value, !text.isEmpty, let schema = parameter["schema"] else { continue }
            let type = resolved(schema)["type"]
            let value: JSONValue
            if type == .string("integer") || type == .string("number") {
                do throws(JSONValue.SyntaxError) {
                    value = try JSONValue.parse(Array(text.utf8))
                } catch {
                    problems.append("it took `\(argument.name)=\(text.prefix(40))`, not a number")
                    continue
                }
            } else {
                value = .string(text)
            }
            var found = schemas.problems(value, schema, at: "query \(argument.name)")
            // A query's text is no typed value: `anyOf` a number or a string takes it as either.
            if !found.isEmpty, resolved(schema)["anyOf"] != nil,
                let number = try? JSONValue.parse(Array(text.utf8)), case .number = number,
                schemas.problems(number, schema, at: "query \(argument.name)").isEmpty
            {
                found = []
            }
            problems += found
        }
        for parameter in queryParameters where parameter["required"] == .bool(true) {
            if !query.contains(where: { .string($0.name) == parameter["name"] }) {
                problems.append("it took a request without the required `\(parameter["name"]?.text ?? "?")`")
            }
        }
        return problems
    }

    /// `value`, or what its `$ref` points to.
    func resolved(_ value: JSONValue) -> JSONValue {
        guard case .string(let pointer)? = value["$ref"], let target = schemas.resolve(pointer) else { return value }
        return resolved(target)
    }

    /// `application/json` of `Application/JSON; charset=utf-8`.
    static func mediaType(_ contentType: String) -> String {
        (contentType.split(separator: ";", omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// Whether a media type is an instance of a documented one (`text/html` of `*/*` or `text/*`).
    static func instance(_ type: String, of documented: String) -> Bool {
        let documented = documented.lowercased()
        if documented == "*/*" || documented == type { return true }
        return documented.hasSuffix("/*") && type.hasPrefix(documented.dropLast())
    }

    /// A YAML tree as JSON: scalars by their resolved tag (`10000` a number, `"200"` a string).
    static func json(_ node: Node) throws -> JSONValue {
        switch node {
        case .scalar(let scalar):
            switch Tag.Name(rawValue: node.tag.rawValue) {
            case .null: return .null
            case .bool: return .bool(node.bool ?? false)
            case .int, .float:
                guard let number = node.float ?? node.int.map(Double.init) else {
                    throw ContractError("the number \(scalar.string) cannot be read")
                }
                return .number(number, text: scalar.string)
            default: return .string(scalar.string)
            }
        case .mapping(let mapping):
            return .object(try mapping.map { key, value in (key.string ?? "", try json(value)) })
        case .sequence(let sequence):
            return .array(try sequence.map(json))
        case .alias:
            throw ContractError("the document uses a YAML alias")
        }
    }
}

extension JSONValue {
    /// The text of a string value.
    var string: String? {
        if case .string(let text) = self { text } else { nil }
    }
}
