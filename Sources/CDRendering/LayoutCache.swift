import CDStore

/// Output a renderer prepares once per ``ObjectLayout`` (JSON keys, column positions) and reuses
/// for every row of that layout.
///
/// Entries are found by identity and keep their layout alive, so a layout freed after its
/// section can never be mistaken for a new one allocated at the same address.
struct LayoutCache<Prepared> {
    private var entries: [(layout: ObjectLayout, prepared: Prepared)] = []

    func prepared(for layout: ObjectLayout) -> Prepared? {
        for entry in entries where entry.layout === layout { return entry.prepared }
        return nil
    }

    mutating func add(_ prepared: Prepared, for layout: ObjectLayout) -> Prepared {
        entries.append((layout, prepared))
        return prepared
    }

    mutating func removeAll() {
        entries.removeAll()
    }
}

/// The URI prefixes (`x-coredata://<uuid>/<Entity>/p`) of one layout's to-one destinations,
/// by property. Each property remembers its last destination entity: it changes only for
/// destinations with sub-entities, and looking the name up is what the cache saves.
final class TargetPrefixes {
    private var cached: [(ent: Int, prefix: [UInt8], suffix: [UInt8])?]
    private let escaping: URIEscaping

    init(_ layout: ObjectLayout, escaping: URIEscaping = .none) {
        cached = Array(repeating: nil, count: layout.names.count)
        self.escaping = escaping
    }

    /// Writes the URI of destination `ent`/`pk` of `property`.
    func appendURI(_ row: borrowing ObjectRow, property: Int, ent: Int, pk: Int64, to buffer: inout OutputBuffer) {
        if let entry = cached[property], entry.ent == ent {
            buffer.append(entry.prefix)
            buffer.append(pk)
            buffer.append(entry.suffix)
        } else {
            let parts = OutputBuffer.uriParts(
                storeUUID: row.layout.storeUUID,
                entity: row.entityName(ofTarget: ent, property: property), escaping: escaping)
            cached[property] = (ent, parts.prefix, parts.suffix)
            buffer.append(parts.prefix)
            buffer.append(pk)
            buffer.append(parts.suffix)
        }
    }
}
