import CDModel
import Foundation

extension StoreMapping {
    /// The mapping Core Data would create for `model`, by the rules of store-format.md §7.
    ///
    /// `Z_ENT` numbers come from `registry` (`Z_PRIMARYKEY`) when given; otherwise from
    /// ``computedEntityNumbers(for:)``. No store is consulted, so uncertain rules are applied as
    /// observed; use ``resolve(model:registry:schema:)`` to check them.
    public static func predict(
        model: ManagedObjectModel, registry: EntityRegistry? = nil,
        options: MappingOptions = MappingOptions()
    ) -> StoreMapping {
        var builder = MappingBuilder(model: model, registry: registry)
        return builder.build(options: options)
    }

    /// `Z_ENT` numbers by the order observed in real stores (§4): root entities in name order,
    /// each followed depth-first by its sub-tree, siblings in name order.
    ///
    /// The name order is case-insensitive (netusage numbers `NetworkAttachment` 12 before
    /// `NWActivityFragment` 13), with byte order breaking ties. The exact collation is
    /// **uncertain** (§14 item 4): prefer `Z_PRIMARYKEY` whenever a store is at hand.
    public static func computedEntityNumbers(for model: ManagedObjectModel) -> [String: Int] {
        let names = Set(model.entities.map(\.name))
        func byName(_ a: String, _ b: String) -> Bool {
            let (la, lb) = (a.lowercased(), b.lowercased())
            return la != lb ? la < lb : a < b
        }
        var numbers: [String: Int] = [:]
        func visit(_ name: String) {
            guard numbers[name] == nil else { return }
            numbers[name] = numbers.count + 1
            for child in model.subentities(of: name).map(\.name).sorted(by: byName) { visit(child) }
        }
        let roots = model.entities.filter { entity in entity.parentName.map { !names.contains($0) } ?? true }
        for root in roots.map(\.name).sorted(by: byName) { visit(root) }
        return numbers
    }
}
