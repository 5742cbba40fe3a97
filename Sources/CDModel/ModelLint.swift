import Foundation

/// One problem `cdstore model --lint` reports.
public struct LintFinding: Sendable, Codable, Equatable {
    /// A stable identifier, e.g. `missing-inverse`, `cloudkit-ordered`.
    public var rule: String
    /// The Core Data error this leads to at run time (134060 for CloudKit rules), if any.
    public var code: Int?
    /// The entity the problem is in.
    public var entity: String
    /// The property the problem is in; `nil` when it concerns the entity as a whole.
    public var property: String?
    /// What is wrong, in one line naming the entity and property.
    public var message: String
}

/// The checks `momc` makes at build time and the CloudKit model rules behind error 134060
/// (docs/format/rendering-and-cli.md §3.4, errors.md §3).
public enum ModelLint {
    /// Transformers that archive with NSKeyedUnarchiver insecurely (momc's "Misconfigured Property").
    static let insecureTransformers: Set<String> = ["NSKeyedUnarchiveFromData", "NSUnarchiveFromData"]

    /// All findings for `model`; the CloudKit rules apply when `cloudKit` is true or the model is
    /// marked `usedWithCloudKit`.
    public static func findings(for model: ManagedObjectModel, cloudKit: Bool = false) -> [LintFinding] {
        var findings = structural(model)
        if cloudKit || model.usedWithCloudKit { findings += cloudKitRules(model) }
        return findings
    }

    private static func structural(_ model: ManagedObjectModel) -> [LintFinding] {
        var findings: [LintFinding] = []
        let names = Set(model.entities.map(\.name))
        for entity in model.entities {
            if let parent = entity.parentName, !names.contains(parent) {
                findings.append(
                    LintFinding(
                        rule: "missing-parent", entity: entity.name,
                        message: "\(entity.name): parent entity \(parent) is not in the model"))
            }
            for relationship in entity.relationships {
                let place = "\(entity.name).\(relationship.name)"
                guard let destination = model.entity(named: relationship.destinationEntity) else {
                    findings.append(
                        LintFinding(
                            rule: "missing-destination", entity: entity.name, property: relationship.name,
                            message: "\(place): destination entity \(relationship.destinationEntity) is not in the model"))
                    continue
                }
                guard let inverseName = relationship.inverseName else {
                    findings.append(
                        LintFinding(
                            rule: "missing-inverse", entity: entity.name, property: relationship.name,
                            message:
                                "\(place) does not have an inverse; this is an advanced setting (no object can be in multiple destinations for a specific relationship)"
                        ))
                    continue
                }
                let inverse = model.allProperties(of: destination.name).compactMap { property -> RelationshipDescription? in
                    if case .relationship(let r) = property, r.name == inverseName { return r }
                    return nil
                }.first
                guard let inverse else {
                    findings.append(
                        LintFinding(
                            rule: "missing-inverse-relationship", entity: entity.name, property: relationship.name,
                            message: "\(place): the inverse \(destination.name).\(inverseName) does not exist"))
                    continue
                }
                let reciprocates =
                    inverse.inverseName == relationship.name
                    && model.lineage(of: entity.name).contains { $0.name == inverse.destinationEntity }
                if !reciprocates {
                    findings.append(
                        LintFinding(
                            rule: "inverse-not-reciprocal", entity: entity.name, property: relationship.name,
                            message: "\(place): The inverse relationship for \(place) does not reciprocate an inverse relationship"))
                }
            }
            for attribute in entity.attributes where attribute.type == .transformable {
                if attribute.valueTransformerName.map(insecureTransformers.contains) ?? true {
                    findings.append(
                        LintFinding(
                            rule: "insecure-transformer", entity: entity.name, property: attribute.name,
                            message:
                                "Misconfigured Property: \(entity.name).\(attribute.name) is using a nil or insecure value transformer. Please switch to NSSecureUnarchiveFromDataTransformerName or a custom NSValueTransformer subclass of NSSecureUnarchiveFromDataTransformer"
                        ))
                }
            }
        }
        return findings
    }

    /// Types CloudKit mirrors: 100–1000, UUID, URI, Transformable and Composite (errors.md §3).
    private static let cloudKitTypes: Set<Int> = [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200, 1800, 2100]

    private static func cloudKitRules(_ model: ManagedObjectModel) -> [LintFinding] {
        var findings: [LintFinding] = []
        func add(_ rule: String, _ entity: String, _ property: String?, _ message: String) {
            findings.append(LintFinding(rule: rule, code: 134060, entity: entity, property: property, message: message))
        }
        for entity in model.entities {
            for attribute in entity.attributes where !attribute.common.isTransient && !attribute.isDerived {
                if !attribute.common.isOptional && attribute.defaultValue == nil {
                    add(
                        "cloudkit-mandatory-attribute", entity.name, attribute.name,
                        "CloudKit integration requires that all attributes be optional, or have a default value set: \(entity.name).\(attribute.name) is non-optional without a default"
                    )
                }
                if !cloudKitTypes.contains(attribute.type.rawValue) {
                    add(
                        "cloudkit-attribute-type", entity.name, attribute.name,
                        "CloudKit integration does not support all attribute types: \(entity.name).\(attribute.name) is \(attribute.type)")
                }
            }
            for relationship in entity.relationships where !relationship.common.isTransient {
                let place = "\(entity.name).\(relationship.name)"
                if !relationship.common.isOptional {
                    add(
                        "cloudkit-mandatory-relationship", entity.name, relationship.name,
                        "CloudKit integration requires that all relationships be optional: \(place) is not")
                }
                if relationship.inverseName == nil {
                    add(
                        "cloudkit-missing-inverse", entity.name, relationship.name,
                        "CloudKit integration requires that all relationships have an inverse: \(place) has none")
                }
                if relationship.isOrdered {
                    add(
                        "cloudkit-ordered", entity.name, relationship.name,
                        "CloudKit integration does not support ordered relationships: \(place) is ordered")
                }
                if relationship.deleteRule == .deny {
                    add(
                        "cloudkit-deny-rule", entity.name, relationship.name,
                        "CloudKit integration does not support the Deny delete rule: \(place)")
                }
            }
            if !entity.uniquenessConstraints.isEmpty {
                add(
                    "cloudkit-unique-constraint", entity.name, nil,
                    "CloudKit integration does not support unique constraints: \(entity.name) is constrained")
            }
        }
        return findings
    }
}

/// Lint findings of each version; the JSON of `cdstore model --lint --json`.
package struct LintReport: Sendable, Codable, Equatable {
    package struct Version: Sendable, Codable, Equatable {
        package var name: String
        package var current: Bool
        package var findings: [LintFinding]
    }

    package var versions: [Version]

    package init(versions: [ModelVersion], cloudKit: Bool) {
        self.versions = versions.map {
            Version(name: $0.name, current: $0.current, findings: ModelLint.findings(for: $0.model, cloudKit: cloudKit))
        }
    }
}
