import CDDiagnostics
import CDModel
import CDStore

/// Which entity of store A holds the rows of which entity of store B, and which of their
/// properties are compared: the pairing `compat` uses (renaming identifier, else name), so
/// entities and properties renamed between the model versions are still matched.
struct EntityPairing {
    /// A concrete entity in A, in B, or in both.
    struct Pair {
        var entityA: String?
        var entityB: String?
        /// The name the report uses: B's, else A's.
        var name: String { entityB ?? entityA ?? "" }
    }

    let pairs: [Pair]
    /// `Z_ENT` of each A entity's partner in B; entities without one get a number no B entity
    /// has, so their objects never equal a B object.
    private let partnerEnt: [Int: Int]
    /// A's entity names by B's.
    private let sourceNames: [String: String]

    init(readerA: ObjectReader, readerB: ObjectReader) {
        var pairs: [Pair] = []
        var pairedA = Set<String>()
        var partners: [Int: Int] = [:]
        var sources: [String: String] = [:]
        let dumpableA = Set(readerA.dumpableEntities)
        for nameB in readerB.dumpableEntities {
            guard let entityB = readerB.model.entity(named: nameB) else { continue }
            var nameA = ModelDiff.sourceEntity(of: entityB, in: readerA.model)?.name
            if let candidate = nameA, !dumpableA.contains(candidate) || pairedA.contains(candidate) { nameA = nil }
            if let nameA {
                pairedA.insert(nameA)
                sources[nameB] = nameA
                if let entA = readerA.mapping.entityNumber(of: nameA), let entB = readerB.mapping.entityNumber(of: nameB) {
                    partners[entA] = entB
                }
            }
            pairs.append(Pair(entityA: nameA, entityB: nameB))
        }
        for nameA in readerA.dumpableEntities where !pairedA.contains(nameA) {
            pairs.append(Pair(entityA: nameA, entityB: nil))
        }
        self.pairs = pairs
        partnerEnt = partners
        sourceNames = sources
    }

    /// Whether any entity is in both stores.
    var sharesAnEntity: Bool { pairs.contains { $0.entityA != nil && $0.entityB != nil } }

    /// B's `Z_ENT` for an A `Z_ENT`, or a number unique to `entA` that no B entity has.
    func partner(ofA entA: Int) -> Int {
        partnerEnt[entA] ?? -1 - entA
    }

    /// A's name for a B entity; nil when A has no such entity.
    func sourceName(ofB nameB: String) -> String? { sourceNames[nameB] }

    /// The pairs to compare for `names` (B's names, else A's, each with its sub-entities); all
    /// pairs when `names` is empty.
    func selected(_ names: [String], readerA: ObjectReader, readerB: ObjectReader) throws -> [Pair] {
        guard !names.isEmpty else { return pairs }
        var wantedB = Set<String>(), wantedA = Set<String>()
        for name in names {
            if readerB.model.entity(named: name) != nil {
                wantedB.formUnion(Self.lineage(name, readerB))
                if let source = sourceNames[name] { wantedA.formUnion(Self.lineage(source, readerA)) }
            } else if readerA.model.entity(named: name) != nil {
                wantedA.formUnion(Self.lineage(name, readerA))
            } else {
                let known = Set(readerA.dumpableEntities + readerB.dumpableEntities).sorted()
                throw DiffError.unknownEntity(name: name, known: known)
            }
        }
        return pairs.filter { pair in
            pair.entityB.map(wantedB.contains) ?? false || pair.entityA.map(wantedA.contains) ?? false
        }
    }

    /// `name` and its sub-entities, by name.
    private static func lineage(_ name: String, _ reader: ObjectReader) -> Set<String> {
        let numbers = Set(reader.mapping.entityNumbers(includingSubentitiesOf: name))
        return Set(reader.mapping.entities.filter { numbers.contains($0.number) }.map(\.name))
    }
}
