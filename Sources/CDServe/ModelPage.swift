import CDBase
import CDModel
import CDRendering
import CDStore
import Foundation
import Hummingbird

/// `/stores/{store}/model`: the model the store is read with (its own model cache, or the
/// version of `--model` that matches it), as `cdstore model` shows it: each entity with its
/// parent and whether it is abstract, its attributes (type, optional, default), relationships
/// (destination, inverse, to-many, ordered, deletion rule), fetch indexes, uniqueness constraints
/// and version hash; and the diagram of `model --format svg`, inlined (laid out by cdstore, so no
/// Graphviz is needed, and free of inline style, so the page's policy allows it).
enum ModelPage {
    static func respond(_ request: PageRequest) throws -> Response {
        guard case .model(let name) = request.route else { throw ServeError.noSuchPage(path: "") }
        try request.parameters.check(known: [])
        let pool = try request.catalog.pool(named: name)
        let store = request.catalog.segment(for: pool.store)
        var changed = false
        let model = try pool.withSession(request.job) { pooled -> ManagedObjectModel in
            changed = pooled.showsNewVersion
            return try pooled.session.model()
        }
        let version = try Self.version(of: model, modelPath: pool.store.modelPath)
        let hashes = ModelHashReport(versions: [version]).versions[0]
        let diagram = ModelDiagram.svg(version)
        if request.format == .json {
            return try ServeResponder.json { json in
                json.beginObject()
                json.key("store")
                StorePage.writeStore(pool.store, segment: store, to: &json)
                json.key("version")
                try json.encoded(version)
                json.key("hashes")
                try json.encoded(hashes)
                json.member("svg", diagram)
                json.endObject()
            }
        }
        var body = HTML.changeNotice(changed)
        body += HTML.definitions([
            ("Version", HTML.escape(version.name)),
            ("Version identifiers", HTML.escape(model.versionIdentifiers.isEmpty ? "—" : model.versionIdentifiers.joined(separator: ", "))),
            ("Entities", String(model.entities.count)), ("Version checksum", "<code>\(HTML.escape(hashes.versionChecksum))</code>"),
        ])
        body += "<h2>Diagram</h2>\n<div class=\"diagram\">\(diagram)</div>\n"
        body += "<h2>Entities</h2>\n"
        for entity in model.entities.sorted(by: { $0.name < $1.name }) {
            body += Self.entity(entity, hash: hashes.entityHashes[entity.name])
        }
        return ServeResponder.html(
            HTML.page(
                title: "Model of \(pool.store.name)", crumbs: [("Stores", "/"), (pool.store.name, Paths.store(store)), ("Model", "")], body: body,
                alternate: Paths.storePage(store, "model", format: .json)))
    }

    /// The model as a version of its source: `cache` for the store's own model cache (as
    /// `cdstore model STORE` names it), else the version of `--model` the store is read with.
    static func version(of model: ManagedObjectModel, modelPath: String?) throws -> ModelVersion {
        guard let modelPath else { return ModelVersion(name: "cache", current: true, model: model) }
        let versions = try ModelSource.versions(at: modelPath)
        return versions.first { $0.model == model } ?? ModelVersion(name: "cache", current: true, model: model)
    }

    private static func entity(_ entity: EntityDescription, hash: String?) -> String {
        var html = "<h3 id=\"entity-\(HTML.escape(Paths.segment(entity.name)))\">\(HTML.escape(entity.name))</h3>\n"
        var facts: [(String, String)] = [("Class", HTML.escape(entity.className))]
        if let parent = entity.parentName { facts.append(("Parent", HTML.escape(parent))) }
        if entity.isAbstract { facts.append(("Abstract", "yes")) }
        if let hash { facts.append(("Version hash", "<code>\(HTML.escape(hash))</code>")) }
        if !entity.uniquenessConstraints.isEmpty {
            facts.append(("Uniqueness constraints", HTML.escape(entity.uniquenessConstraints.map { $0.joined(separator: ", ") }.joined(separator: "; "))))
        }
        if !entity.fetchIndexes.isEmpty {
            let indexes = entity.fetchIndexes.map { index in
                index.name + " ("
                    + index.elements.map { $0.property + ($0.ascending ? "" : " desc") + ($0.type == "Binary" ? "" : " " + $0.type) }
                    .joined(separator: ", ") + ")" + (index.partialIndexPredicate.map { " where " + $0 } ?? "")
            }
            facts.append(("Fetch indexes", HTML.escape(indexes.joined(separator: "; "))))
        }
        html += HTML.definitions(facts)
        let attributes = entity.attributes.map { attribute -> [String] in
            [
                HTML.escape(attribute.name), HTML.escape(attribute.type.description), attribute.common.isOptional ? "optional" : "required",
                HTML.escape(attribute.defaultValue ?? ""),
                HTML.escape(
                    [attribute.common.isTransient ? "transient" : nil, attribute.isDerived ? "derived" : nil, attribute.common.isIndexed ? "indexed" : nil]
                        .compactMap { $0 }.joined(separator: ", ")),
            ]
        }
        if !attributes.isEmpty { html += HTML.table(headers: ["Attribute", "Type", "Optional", "Default", "Notes"], rows: attributes, className: "model") }
        let relationships = entity.relationships.map { relationship -> [String] in
            [
                HTML.escape(relationship.name), HTML.escape(relationship.destinationEntity),
                relationship.inverseName.map(HTML.escape) ?? "<span class=\"warning\">no inverse</span>",
                relationship.isToMany ? "to-many" + (relationship.isOrdered ? ", ordered" : "") : "to-one",
                relationship.common.isOptional ? "optional" : "required", HTML.escape(relationship.deleteRule.description),
            ]
        }
        if !relationships.isEmpty {
            html += HTML.table(
                headers: ["Relationship", "Destination", "Inverse", "Cardinality", "Optional", "Delete rule"], rows: relationships, className: "model")
        }
        return html
    }
}
