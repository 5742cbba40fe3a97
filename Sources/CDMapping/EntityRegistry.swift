import Foundation

/// One row of `Z_PRIMARYKEY`: an entity's number, parent and key high-water mark (§4).
public struct RegisteredEntity: Sendable, Codable, Equatable {
    /// `Z_ENT`.
    public let ent: Int
    /// `Z_NAME`: the entity's name in the model (or the framework's, e.g. `TRANSACTION`).
    public let name: String
    /// `Z_SUPER`: the direct parent's `Z_ENT`, 0 for a root.
    public let superEnt: Int
    /// `Z_MAX`: highest `Z_PK` allocated; meaningful on the root row of a hierarchy.
    public let max: Int

    package init(ent: Int, name: String, superEnt: Int, max: Int) {
        self.ent = ent
        self.name = name
        self.superEnt = superEnt
        self.max = max
    }

    /// Framework-owned entities have numbers in reserved ranges (store-format.md §4).
    public var reservedRange: ReservedRange? { ReservedRange(ent: ent) }
}

/// Entity-number ranges Core Data keeps for its own models.
public enum ReservedRange: String, Sendable, Codable {
    /// 16001–16003: persistent history tracking.
    case history
    /// 17000–17999: CloudKit mirroring metadata.
    case cloudKit
    /// 18000+: internal index statistics.
    case indexStatistics

    init?(ent: Int) {
        switch ent {
        case 16001..<17000: self = .history
        case 17000..<18000: self = .cloudKit
        case 18000...: self = .indexStatistics
        default: return nil
        }
    }
}

/// The entity tree of a store, from `Z_PRIMARYKEY`.
///
/// Entity numbers are always read, never recomputed: the ordering rule Core Data uses is not
/// known exactly (store-format.md §4).
public struct EntityRegistry: Sendable {
    /// Rows in `Z_ENT` order.
    public let entities: [RegisteredEntity]
    /// Values of `Z_PRIMARYKEY` that could not be used as they are: a row whose `Z_ENT` is not a
    /// plausible entity number is left out, a bad `Z_SUPER` or `Z_MAX` reads as 0.
    public let problems: [StoredValueProblem]

    /// The entity numbers a store can hold: Core Data numbers entities from 1 and its reserved
    /// ranges end well below the top of this range (store-format.md §4). Anything larger is
    /// damage, and nothing may be sized by it.
    public static let entityNumbers: ClosedRange<Int64> = 1...999_999

    package init(entities: [RegisteredEntity], problems: [StoredValueProblem] = []) {
        self.entities = entities.sorted { $0.ent < $1.ent }
        self.problems = problems
    }

    /// The entity registered under `Z_ENT` `ent`, nil when none is.
    public func entity(ent: Int) -> RegisteredEntity? { entities.first { $0.ent == ent } }
    /// The entity registered under `name` (`Z_NAME`, case-sensitive), nil when none is.
    public func entity(named name: String) -> RegisteredEntity? { entities.first { $0.name == name } }

    /// The direct parent of `entity`; nil for a root or when `Z_SUPER` names no registered entity.
    public func parent(of entity: RegisteredEntity) -> RegisteredEntity? {
        entity.superEnt == 0 ? nil : self.entity(ent: entity.superEnt)
    }

    /// The direct sub-entities of `entity`, in `Z_ENT` order.
    public func children(of entity: RegisteredEntity) -> [RegisteredEntity] {
        entities.filter { $0.superEnt == entity.ent && $0.ent != entity.ent }
    }

    /// The root of `entity`'s hierarchy (guarding against cycles in a damaged table).
    public func root(of entity: RegisteredEntity) -> RegisteredEntity {
        var current = entity
        var seen: Set<Int> = [entity.ent]
        while let parent = parent(of: current), seen.insert(parent.ent).inserted {
            current = parent
        }
        return current
    }

    /// `entity` and all its descendants, depth first.
    public func subtree(of entity: RegisteredEntity) -> [RegisteredEntity] {
        var result: [RegisteredEntity] = []
        var stack = [entity]
        var seen: Set<Int> = []
        while let next = stack.popLast() {
            guard seen.insert(next.ent).inserted else { continue }
            result.append(next)
            stack.append(contentsOf: children(of: next).reversed())
        }
        return result
    }

    /// Root entities, in `Z_ENT` order.
    public var roots: [RegisteredEntity] {
        entities.filter { $0.superEnt == 0 || entity(ent: $0.superEnt) == nil }
    }

    /// The table holding `entity`'s rows: `Z` + uppercase root name, or `A` + uppercase name
    /// for the framework's history and CloudKit entities (§7.1, §11, §12).
    public func tableName(for entity: RegisteredEntity) -> String {
        let root = root(of: entity)
        return root.reservedRange == nil
            ? CoreDataNaming.entityTable(root: root.name) : CoreDataNaming.frameworkTable(root: root.name)
    }
}
