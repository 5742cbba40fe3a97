import CDBase
import CDFetch
import CDModel
import CDPredicate
import CDRendering
import CDSession
import CDStore
import Hummingbird

/// `/stores/{store}/entities/{Entity}/{pk}/{relationship}`: the members of one to-many
/// relationship, `size` per page (default 50) with a `next` link.
///
/// With an inverse, and unordered, the members are fetched from the destination through the
/// inverse (`inverse == %@`, or `ANY inverse == %@` for a many-to-many) in `Z_PK` order with
/// keyset pages. An ordered relationship, or one without an inverse, is read in the order
/// `dump --include` lists its members (the `Z_FOK_` column, then `Z_PK`), one page per query
/// with a keyset on that order (``ObjectReader/members(of:owner:primaryKey:after:limit:)``).
/// Either way no page reads the whole relationship.
enum MemberList {
    static let defaultSize = 50

    /// How the pages of a relationship are read, named in its page tokens.
    private enum Reading: String {
        case throughInverse = "Z_PK"
        case inOrder = "@order,Z_PK"
    }

    private static func reading(_ relationship: RelationshipDescription) -> Reading {
        relationship.inverseName != nil && !relationship.isOrdered ? .throughInverse : .inOrder
    }

    /// One page of `object`'s members through `relationship` after `after`, and the next page's
    /// token.
    static func members(_ session: StoreSession, of object: StoredObject, relationship: RelationshipDescription, after: PageToken?, size: Int) throws
        -> (members: [ObjectID], next: PageToken?)
    {
        let mode = Self.reading(relationship)
        if let after, after.sort != mode.rawValue || (mode == .throughInverse && !after.position.sortValues.isEmpty) {
            throw ServeError.badRequest("the after parameter is not a page token of this list; follow the page's next link")
        }
        let runner = try session.runner()
        switch mode {
        case .throughInverse:
            guard let inverseName = relationship.inverseName,
                case .relationship(let inverse)? = runner.reader.model.allProperties(of: relationship.destinationEntity).first(where: { $0.name == inverseName }
                )
            else {
                throw ServeError.storeFailure(
                    "\(relationship.destinationEntity) has no relationship \(relationship.inverseName ?? ""), the inverse of \(relationship.name)")
            }
            let predicate = try PredicateParser.parse(inverse.isToMany ? "ANY %K == %@" : "%K == %@", arguments: [inverseName, object.id.uri])
            var request = FetchRequest(entity: relationship.destinationEntity, predicate: predicate, limit: size + 1)
            request.keyset = KeysetPage(after: after?.position)
            var found: [ObjectID] = []
            try runner.objects(request, section: { _ in }, object: { found.append($0.id) })
            guard found.count > size else { return (found, nil) }
            found.removeLast(found.count - size)
            return (found, found.last.map { PageToken(sort: mode.rawValue, position: KeysetPosition(sortValues: [], primaryKey: $0.pk)) })
        case .inOrder:
            // The token holds the last member's order value when the store keeps an order.
            let ordered = try runner.reader.hasMemberOrder(relationship, owner: object.id.entity)
            if let after, after.position.sortValues.count != (ordered ? 1 : 0) {
                throw ServeError.badRequest("the after parameter is not a page token of this list; follow the page's next link")
            }
            let start = after.map { MemberPosition(order: $0.position.sortValues.first, primaryKey: $0.position.primaryKey) }
            var found = try runner.reader.members(of: relationship, owner: object.id.entity, primaryKey: object.id.pk, after: start, limit: size + 1)
            guard found.count > size else { return (found.map(\.id), nil) }
            found.removeLast(found.count - size)
            let next = found.last.map { last in
                PageToken(
                    sort: mode.rawValue,
                    position: KeysetPosition(sortValues: last.position.order.map { [$0] } ?? [], primaryKey: last.position.primaryKey))
            }
            return (found.map(\.id), next)
        }
    }

    static func respond(_ request: PageRequest, pool: SessionPool, entity: String, primaryKey: Int64, relationship name: String) throws -> Response {
        try request.parameters.check(known: ["after", "size"])
        let size = try request.parameters.integer("size", in: 1...EntityQuery.maximumSize) ?? defaultSize
        let after = try request.parameters.single("after").map { text throws(ServeError) in try PageToken(text) }
        let store = request.catalog.segment(for: pool.store)
        let (object, relationship, page) = try pool.withSession(request.job) { pooled in
            let object = try ObjectPage.read(pooled.session, entity: entity, primaryKey: primaryKey)
            let model = try pooled.session.model()
            guard case .relationship(let relationship)? = model.allProperties(of: object.id.entity).first(where: { $0.name == name }),
                relationship.isToMany
            else { throw ServeError.unknownRelationship(entity: object.id.entity, name: name) }
            return (object, relationship, try members(pooled.session, of: object, relationship: relationship, after: after, size: size))
        }
        var count: Int?
        if case .objectCount(let total)? = object.value(name) { count = total }
        let parameters = size == defaultSize ? [] : [("size", String(size))]
        let next = page.next.map {
            Paths.members(store, object.id.entity, object.id.pk, name, format: request.format, query: parameters + [("after", $0.encoded)])
        }
        if request.format == .json {
            return ServeResponder.json { json in
                json.beginObject()
                json.key("store")
                StorePage.writeStore(pool.store, segment: store, to: &json)
                json.member("entity", object.id.entity)
                json.member("object", object.id.uri)
                json.member("relationship", name)
                json.member("destination", relationship.destinationEntity)
                json.member("inverse", relationship.inverseName)
                json.member("count", count)
                json.key("members")
                json.strings(page.members.map(\.uri))
                json.member("next", next)
                json.endObject()
            }
        }
        var body = "<p>\(HTML.escape(plural(count ?? page.members.count, "object"))) in \(HTML.escape(relationship.destinationEntity))"
        body += relationship.inverseName.map { "; inverse \(HTML.escape($0))" } ?? "; no inverse"
        body += ".</p>\n<ol class=\"members\">"
        body += page.members.map { "<li>" + HTML.link(Paths.object(store, $0.entity, $0.pk), "\($0.entity)/p\($0.pk)") + "</li>" }.joined()
        body += "</ol>\n<div class=\"pager\">"
        if after != nil { body += HTML.link(Paths.members(store, object.id.entity, object.id.pk, name, query: parameters), "« First page") + " " }
        if let next { body += HTML.link(next, "Next page »") }
        body += "</div>\n"
        let crumbs = [
            ("Stores", "/"), (pool.store.name, Paths.store(store)), (object.id.entity, Paths.entity(store, object.id.entity)),
            ("p\(object.id.pk)", Paths.object(store, object.id.entity, object.id.pk)), (name, ""),
        ]
        return ServeResponder.html(
            HTML.page(
                title: "\(object.id.entity) p\(object.id.pk).\(name)", crumbs: crumbs, body: body,
                alternate: Paths.members(
                    store, object.id.entity, object.id.pk, name, format: .json, query: parameters + (after.map { [("after", $0.encoded)] } ?? []))))
    }
}
