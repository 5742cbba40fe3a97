import CDBase
import CDChanges
import CDFetch
import CDModel
import CDPredicate
import CDRendering
import CDSession
import CDStore
import Hummingbird

/// `/stores/{store}/entities/{Entity}/{pk}`: one object, every property: attributes as the dump
/// writes them, to-one relationships as links, to-many relationships with their count and first
/// members, each relationship with its inverse; then Core Data's `description` of the object,
/// and where the store keeps persistent history, the newest transactions that changed it.
/// A binary or transformable value over ``largeValueLimit`` is not read into the page: it
/// shows its size and links to `…/{pk}/{attribute}`, which streams it (``ValueStream``).
/// `…/{pk}/{relationship}` lists a to-many relationship's members, paged (``MemberList``).
enum ObjectPage {
    /// Members listed on the object page before the link to the whole list.
    static let previewSize = 10
    /// The longest binary or transformable value an object page reads (64 KiB).
    static let largeValueLimit = 64 * 1024
    /// Transactions listed in the object's history section.
    static let historySize = 20

    static func respond(_ request: PageRequest) throws -> Response {
        switch request.route {
        case .object(let storeName, let entity, let primaryKey):
            try request.parameters.check(known: [])
            let pool = try request.catalog.pool(named: storeName)
            return try object(request, pool: pool, entity: entity, primaryKey: primaryKey)
        case .members(let storeName, let entity, let primaryKey, let name):
            let pool = try request.catalog.pool(named: storeName)
            if let attribute = try pool.withSession(request.job, { try ValueStream.streamedAttribute(name, of: entity, in: $0.session) }) {
                return try ValueStream.respond(request, pool: pool, entity: entity, primaryKey: primaryKey, attribute: attribute)
            }
            return try MemberList.respond(request, pool: pool, entity: entity, primaryKey: primaryKey, relationship: name)
        default: throw ServeError.noSuchPage(path: "")
        }
    }

    /// The object `primaryKey` of `entity` (its sub-entities included), to-many relationships
    /// as counts, values over ``largeValueLimit`` unread; a 404 when there is none.
    static func read(_ session: StoreSession, entity: String, primaryKey: Int64) throws -> StoredObject {
        let reader = try session.runner().reader
        guard reader.dumpableEntities.contains(entity) else {
            throw StoreError.unknownEntity(entity, mapping: reader.mapping, model: reader.model)
        }
        var found: StoredObject?
        let query = ObjectQuery(entity: entity, countsToMany: true, primaryKey: primaryKey, largeValueLimit: largeValueLimit)
        try reader.read(query, section: { _ in }, object: { found = $0 })
        guard let found else { throw ServeError.unknownObject(entity: entity, primaryKey: primaryKey) }
        return found
    }

    /// What the page shows of one relationship.
    struct RelationshipView {
        var relationship: RelationshipDescription
        var count: Int?
        var preview: [ObjectID]
    }

    private static func object(_ request: PageRequest, pool: SessionPool, entity: String, primaryKey: Int64) throws -> Response {
        let store = request.catalog.segment(for: pool.store)
        var changed = false
        var history: [HistoryTransaction]?
        let (object, relationships) = try pool.withSession(request.job) { pooled -> (StoredObject, [RelationshipView]) in
            changed = pooled.showsNewVersion
            let object = try read(pooled.session, entity: entity, primaryKey: primaryKey)
            let model = try pooled.session.model()
            var views: [RelationshipView] = []
            for case .relationship(let relationship) in model.allProperties(of: object.id.entity) {
                var view = RelationshipView(relationship: relationship, count: nil, preview: [])
                if relationship.isToMany {
                    if case .objectCount(let count)? = object.value(relationship.name) { view.count = count }
                    view.preview = try MemberList.members(pooled.session, of: object, relationship: relationship, after: nil, size: previewSize).members
                }
                views.append(view)
            }
            history = try HistoryPage.transactions(
                pooled.session, HistoryFilter(entity: object.id.entity, objectPrimaryKey: object.id.pk, newest: historySize + 1))
            return (object, views)
        }
        let historyPage = history.map { Array($0.reversed().prefix(historySize)) }
        let olderHistory = (history?.count ?? 0) > historySize
        var describer = DescriptionRenderer()
        let description = describer.render(object)
        if request.format == .json {
            return try ServeResponder.json { json in
                json.beginObject()
                json.key("store")
                StorePage.writeStore(pool.store, segment: store, to: &json)
                json.member("entity", object.id.entity)
                json.key("object")
                json.value { JSONValues().append(object, to: &$0) }
                json.key("relationships")
                json.beginArray()
                for view in relationships {
                    let toMany = view.relationship.isToMany
                    json.beginObject()
                    json.member("name", view.relationship.name)
                    json.member("destination", view.relationship.destinationEntity)
                    json.member("inverse", view.relationship.inverseName)
                    json.member("toMany", toMany)
                    json.member("count", view.count)
                    json.key("members")
                    if toMany { json.strings(view.preview.map(\.uri)) } else { json.null() }
                    json.member("url", toMany ? Paths.members(store, object.id.entity, object.id.pk, view.relationship.name, format: .json) : nil)
                    json.endObject()
                }
                json.endArray()
                json.member("description", description)
                json.key("history")
                if let historyPage {
                    json.beginObject()
                    json.key("transactions")
                    json.beginArray()
                    for transaction in historyPage { try json.encoded(transaction) }
                    json.endArray()
                    json.member("more", olderHistory)
                    json.endObject()
                } else {
                    json.null()
                }
                json.endObject()
            }
        }
        let byName = Dictionary(relationships.map { ($0.relationship.name, $0) }) { first, _ in first }
        var rows: [[String]] = []
        for (name, value) in object.values {
            guard let view = byName[name] else {
                var cell = ValueHTML.content(value, store: store)
                if case .largeValue = value {
                    cell += " " + HTML.link(Paths.members(store, object.id.entity, object.id.pk, name), "download »")
                }
                rows.append([HTML.escape(name), cell, "<span class=\"muted\">attribute</span>"])
                continue
            }
            let relationship = view.relationship
            let inverse = relationship.inverseName.map { "inverse " + HTML.escape($0) } ?? "<span class=\"warning\">no inverse</span>"
            let kind =
                (relationship.isToMany ? "to-many" + (relationship.isOrdered ? ", ordered" : "") : "to-one")
                + " → \(HTML.escape(relationship.destinationEntity)); \(inverse)"
            guard relationship.isToMany else {
                rows.append([HTML.escape(name), ValueHTML.content(value, store: store), kind])
                continue
            }
            let count = view.count ?? view.preview.count
            var cell = HTML.escape(plural(count, "object"))
            if !view.preview.isEmpty {
                cell += ": " + view.preview.map { HTML.link(Paths.object(store, $0.entity, $0.pk), "\($0.entity)/p\($0.pk)") }.joined(separator: ", ")
            }
            if count > view.preview.count {
                cell += " " + HTML.link(Paths.members(store, object.id.entity, object.id.pk, name), "all \(count) »")
            }
            rows.append([HTML.escape(name), cell, kind])
        }
        var body = HTML.changeNotice(changed) + "<p class=\"muted\">\(HTML.escape(object.id.uri))</p>\n"
        body += HTML.table(headers: ["Property", "Value", "Kind"], rows: rows, className: "object")
        body += "<h2>Description</h2>\n<pre>\(HTML.escape(description))</pre>\n"
        body += "<h2>History</h2>\n"
        if let historyPage {
            body +=
                historyPage.isEmpty
                ? "<p class=\"muted\">No transaction in the persistent history changed this object.</p>\n" : HistoryPage.timeline(historyPage, store: store)
            if olderHistory { body += "<p class=\"muted\">Only the newest \(historySize) transactions are shown.</p>\n" }
        } else {
            body += "<p class=\"muted\">This store keeps no persistent history.</p>\n"
        }
        let crumbs = [
            ("Stores", "/"), (pool.store.name, Paths.store(store)), (object.id.entity, Paths.entity(store, object.id.entity)),
            ("p\(object.id.pk)", ""),
        ]
        return ServeResponder.html(
            HTML.page(
                title: "\(object.id.entity) p\(object.id.pk)", crumbs: crumbs, body: body,
                alternate: Paths.object(store, object.id.entity, object.id.pk, format: .json), live: HTML.Live(events: Paths.events(store))))
    }
}
