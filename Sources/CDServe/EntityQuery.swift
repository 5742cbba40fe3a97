import CDFetch
import CDModel
import CDPredicate
import CDRendering
import CDSession
import CDStore

/// What an entity page or export asks for, read from its query parameters: `where` (an
/// NSPredicate, or a CDQ chain on this entity, parsed by the same code as `cdstore query`),
/// `sort` (repeatable, `key[:desc][:nocase]` as `query --sort` writes it), `size` (objects per
/// page, 1–1000, default 50) and `after` (the page token of the page before).
struct EntityQuery: Sendable {
    static let parameters: Set<String> = ["where", "sort", "size", "after", "sql", "changed"]
    static let defaultSize = 50
    static let maximumSize = 1000

    let entity: String
    /// The filter as typed, for the form and the links.
    let whereText: String?
    let predicate: CDPredicate.Predicate?
    /// The sort as the parameters wrote it (the chain's own sort when none was given).
    let sortTexts: [String]
    let sortDescriptors: [CDModel.SortDescriptor]
    let size: Int
    let after: PageToken?
    /// The filter's error, for the page to show inline; nil when it parsed.
    let problem: ServeError?

    init(entity: String, parameters: QueryParameters, known: Set<String> = Self.parameters) throws(ServeError) {
        try parameters.check(known: known)
        self.entity = entity
        size = try parameters.integer("size", in: 1...Self.maximumSize) ?? Self.defaultSize
        var sortTexts = parameters.all("sort").filter { !$0.isEmpty }
        var sorts: [CDModel.SortDescriptor] = []
        for text in sortTexts {
            guard let descriptor = CDModel.SortDescriptor(parsing: text) else {
                throw .badRequest("sort takes KEY with :desc, :nocase, :numeric, :localized or :standard after it, not \"\(text)\"")
            }
            sorts.append(descriptor)
        }
        let whereText = try parameters.single("where").flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
        self.whereText = whereText
        var predicate: CDPredicate.Predicate?
        var problem: ServeError?
        if let whereText {
            do {
                let parsed = try Self.parseFilter(whereText, entity: entity)
                predicate = parsed.predicate
                if sorts.isEmpty && !parsed.sortDescriptors.isEmpty {
                    sorts = parsed.sortDescriptors
                    sortTexts = parsed.sortDescriptors.map(Self.text)
                }
            } catch {
                problem = ServeError(error)
            }
        }
        self.predicate = predicate
        self.problem = problem
        sortDescriptors = sorts
        self.sortTexts = sortTexts
        after = try parameters.single("after").map { text throws(ServeError) in try PageToken(text) }
        if let after, after.sort != sortKey {
            throw .badRequest("the after token belongs to another sort; start again from the first page")
        }
    }

    /// The sort as one string, kept in page tokens.
    var sortKey: String { sortTexts.joined(separator: ",") }

    /// An NSPredicate, or a CDQ chain (`Entity.where(…)…`) that fetches this entity's objects
    /// without a limit or offset of its own (the pages are the limit).
    /// A text that looks like a chain (a name, then `.` or `(`) may also be a predicate on a key
    /// path (`owner.name != nil`): it is read as a chain first, then as a predicate, and when
    /// neither reads it the chain's error is the one shown.
    static func parseFilter(_ text: String, entity: String) throws -> FetchRequest {
        guard QueryExpression.syntax(of: text) == .cdq else {
            return FetchRequest(entity: entity, predicate: try PredicateParser.parse(text, checksPatterns: true))
        }
        let request: FetchRequest
        do {
            request = try QueryExpression.parse(text)
        } catch let chainError {
            guard let predicate = try? PredicateParser.parse(text, checksPatterns: true) else { throw chainError }
            return FetchRequest(entity: entity, predicate: predicate)
        }
        guard request.entity == entity else {
            throw ServeError.badQuery("the chain fetches \(request.entity); this page shows \(entity): filter on that entity's page", caret: nil)
        }
        guard request.result == .objects, request.limit == nil, request.offset == nil, !request.takesLast else {
            throw ServeError.badQuery("a filter here selects objects: drop the chain's count, limit, offset, first or last (the pages do that)", caret: nil)
        }
        return request
    }

    static func text(_ descriptor: CDModel.SortDescriptor) -> String {
        var text = descriptor.key
        if !descriptor.ascending { text += ":desc" }
        switch descriptor.comparison {
        case .compare?, nil: break
        case .caseInsensitiveCompare?: text += ":nocase"
        case .numericCaseInsensitiveCompare?: text += ":numeric"
        case .localizedCompare?: text += ":localized"
        case .localizedCaseInsensitiveCompare?: text += ":localizednocase"
        case .localizedStandardCompare?: text += ":standard"
        }
        return text
    }

    /// The fetch Core Data would run for this filter and sort (what the SQL panel shows).
    var coreDataRequest: FetchRequest {
        FetchRequest(entity: entity, predicate: predicate, sortDescriptors: sortDescriptors)
    }

    /// The count of the objects the filter matches, the statement `query --count` runs.
    var countRequest: FetchRequest {
        FetchRequest(entity: entity, predicate: predicate, result: .count)
    }

    /// The fetch of one page: `size + 1` objects in keyset order after `position`, so the extra
    /// one tells whether there is a next page.
    func pageRequest(after position: KeysetPosition?, size: Int) -> FetchRequest {
        var request = FetchRequest(entity: entity, predicate: predicate, sortDescriptors: sortDescriptors, limit: size + 1)
        request.keyset = KeysetPage(after: position)
        return request
    }

    /// The parameters that reproduce this filter and sort, for links.
    var linkParameters: [(String, String)] {
        (whereText.map { [("where", $0)] } ?? []) + sortTexts.map { ("sort", $0) } + (size == Self.defaultSize ? [] : [("size", String(size))])
    }

    /// One page of objects: the objects (at most `size`), their property names, and the token of
    /// the next page when there is one.
    static func readPage(_ runner: FetchRunner, query: EntityQuery, after position: KeysetPosition?, size: Int, countsToMany: Bool = true) throws -> Page {
        var request = query.pageRequest(after: position, size: size)
        request.largeValueLimit = ObjectPage.largeValueLimit
        var properties: [String] = []
        var objects: [StoredObject] = []
        try runner.objects(request, countsToMany: countsToMany, section: { properties = $0.properties }, object: { objects.append($0) })
        var next: PageToken?
        if objects.count > size {
            objects.removeLast(objects.count - size)
            if let last = objects.last {
                next = PageToken(sort: query.sortKey, position: try runner.keysetPosition(of: last.id.pk, in: request))
            }
        }
        return Page(properties: properties, objects: objects, next: next)
    }

    struct Page {
        var properties: [String]
        var objects: [StoredObject]
        var next: PageToken?
    }

    /// ``readPage(_:query:after:size:countsToMany:)`` for the JSON twin: the objects written
    /// straight from the rows into one array, each exactly as `dump --format json` writes it
    /// (``JSONValues/object(_:)``). Building a ``StoredObject``, then a `String` per object,
    /// then joining them was the largest cost of the JSON page in the page itself under
    /// scripts/bench-serve.sh.
    static func readJSONPage(_ runner: FetchRunner, query: EntityQuery, after position: KeysetPosition?, size: Int) throws -> JSONPage {
        var request = query.pageRequest(after: position, size: size)
        request.largeValueLimit = ObjectPage.largeValueLimit
        var page = JSONPage(properties: [], objects: JSONWriter(capacity: 16_384), next: nil)
        var list = JSONObjectList()
        page.objects.beginArray()
        var read = 0
        var lastKey: Int64?
        try runner.rows(request, countsToMany: true, section: { page.properties = $0.properties }) { row in
            read += 1
            // The row after the page is decoded too, as readPage decodes it: a to-many count that
            // fails there fails both twins alike.
            guard read <= size else { return _ = try row.object() }
            try list.append(row, to: &page.objects)
            lastKey = row.pk
        }
        page.objects.endArray()
        if read > size, let lastKey {
            page.next = PageToken(sort: query.sortKey, position: try runner.keysetPosition(of: lastKey, in: request))
        }
        return page
    }

    /// A page as ``readJSONPage(_:query:after:size:)`` reads it.
    struct JSONPage {
        var properties: [String]
        /// The objects' JSON array.
        var objects: JSONWriter
        var next: PageToken?
    }
}
