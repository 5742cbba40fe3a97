import CDBase
import Foundation

/// Pictures of one model version for `cdstore model --format dot|mermaid|svg`: a box per entity
/// with its attributes and their types, an edge per relationship (a relationship and its
/// inverse share one edge) labelled with each one's `Entity.name`, order and delete rule and
/// with the multiplicity at each end, and an inheritance edge from each sub-entity to its parent.
///
/// DOT is Graphviz's language (`dot -Tpng`); Mermaid's `classDiagram` renders in Markdown on
/// GitHub and in many editors; the SVG is laid out by cdstore itself (``ModelDiagram/svg(_:)``),
/// for a browser with nothing installed. All three draw the same ``ModelGraph``.
package enum ModelDiagram {
    /// The DOT text of `version`: an HTML-like table per entity; crow's-foot arrows and the
    /// multiplicity at each end of an edge, and in its middle the relationships it stands for
    /// (`Entity.name`, whose end is then unambiguous) with their order and delete rules.
    package static func dot(_ version: ModelVersion) -> String {
        let graph = ModelGraph(version.model)
        var lines = [
            "digraph \(dotID(version.name)) {",
            "  graph [fontname=\"Helvetica\", nodesep=0.8, ranksep=0.9];",
            "  node [shape=plaintext, fontname=\"Helvetica\", fontsize=11];",
            "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\", labeldistance=1.6, labelangle=40];",
        ]
        for box in graph.boxes {
            lines.append("  \(dotID(box.name)) [label=<\(dotTable(box))>];")
        }
        for link in graph.links {
            var attributes = ["arrowhead=\(crowsFoot(link.forward))", "headlabel=\(dotID(multiplicity(link.forward)))"]
            var label = dotEndLabel(link.source, link.forward)
            if let inverse = link.inverse {
                attributes = ["dir=both"] + attributes + ["arrowtail=\(crowsFoot(inverse))", "taillabel=\(dotID(multiplicity(inverse)))"]
                label += "<br/>" + dotEndLabel(link.forward.destinationEntity, inverse)
            }
            lines.append(
                "  \(dotID(link.source)) -> \(dotID(link.forward.destinationEntity)) [\((attributes + ["label=<\(label)>"]).joined(separator: ", "))];")
        }
        // Drawn parent → child with the arrow at the parent's end, so that Graphviz ranks the
        // parent above its sub-entities.
        for (child, parent) in graph.inheritance {
            lines.append("  \(dotID(parent)) -> \(dotID(child)) [dir=back, arrowtail=empty, style=dashed];")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    /// The Mermaid `classDiagram` text of `version`.
    package static func mermaid(_ version: ModelVersion) -> String {
        let graph = ModelGraph(version.model)
        let ids = MermaidIDs(
            entityNames: graph.boxes.map(\.name) + graph.links.map(\.forward.destinationEntity)
                + graph.inheritance.map(\.parent))
        var lines = ["classDiagram"]
        for box in graph.boxes {
            let id = ids.id(box.name)
            let declaration = "  class " + id + (id == box.name ? "" : "[\"\(mermaidText(box.name))\"]")
            guard box.isAbstract || !box.attributes.isEmpty else {
                lines.append(declaration)
                continue
            }
            lines.append(declaration + " {")
            if box.isAbstract { lines.append("    <<abstract>>") }
            lines += box.attributes.map { "    " + mermaidText($0.name) + ": " + $0.type }
            lines.append("  }")
        }
        for link in graph.links {
            let source = ids.id(link.source), destination = ids.id(link.forward.destinationEntity)
            let forward = "\"\(multiplicity(link.forward))\" \(destination) : \(mermaidEndLabel(link.source, link.forward))"
            if let inverse = link.inverse {
                let backward = mermaidEndLabel(link.forward.destinationEntity, inverse)
                lines.append("  \(source) \"\(multiplicity(inverse))\" -- \(forward) / \(backward)")
            } else {
                lines.append("  \(source) --> \(forward)")
            }
        }
        for (child, parent) in graph.inheritance {
            lines.append("  \(ids.id(parent)) <|-- \(ids.id(child))")
        }
        return lines.joined(separator: "\n")
    }

    // MARK: What both pictures say

    /// How many objects one end holds, in UML's notation: `0..1`, `1`, `0..*`, `3..10`.
    ///
    /// An optional relationship may be empty whatever its minimum count (Xcode 4 wrote
    /// `minCount="1"` on optional to-ones); a required one holds at least one object.
    package static func multiplicity(_ relationship: RelationshipDescription) -> String {
        let lower = relationship.common.isOptional ? 0 : max(1, relationship.minCount)
        let upper = relationship.isToMany ? (relationship.maxCount > 0 ? String(relationship.maxCount) : "*") : "1"
        return upper == String(lower) ? upper : "\(lower)..\(upper)"
    }

    /// The words after an end's name: ordered, and the delete rule.
    static func endNotes(_ relationship: RelationshipDescription) -> String {
        (relationship.isOrdered ? "ordered, " : "") + relationship.deleteRule.description.lowercased()
    }

    /// `name: Type`, `?` when optional, `transient` and `derived` when so.
    static func attributeType(_ attribute: AttributeDescription) -> String {
        "\(attribute.type)" + (attribute.common.isOptional ? "?" : "")
            + (attribute.common.isTransient ? " transient" : "") + (attribute.isDerived ? " derived" : "")
    }

    // MARK: DOT

    /// A DOT double-quoted ID. Inside quotes DOT only treats `\"` specially; doubling every
    /// backslash keeps a name ending in one from escaping the closing quote.
    static func dotID(_ name: String) -> String {
        var text = ""
        for character in name {
            switch character {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n", "\r": text += " "
            default: text.append(character)
            }
        }
        return "\"" + text + "\""
    }

    /// Text for an HTML-like label or SVG (``MarkupText/Context/xml``).
    static func html(_ text: String) -> String { MarkupText.escape(text, for: .xml) }

    private static func dotTable(_ box: ModelGraph.Box) -> String {
        let title =
            box.isAbstract
            ? "<i>\(html(box.name))</i><br/><font point-size=\"9\">abstract</font>"
            : "<b>\(html(box.name))</b>"
        var rows = ["<tr><td bgcolor=\"\(box.isAbstract ? "#eeeeee" : "#dce6f2")\">\(title)</td></tr>"]
        if !box.attributes.isEmpty {
            let lines = box.attributes.map { html("\($0.name): \($0.type)") + "<br align=\"left\"/>" }
            rows.append("<tr><td align=\"left\">\(lines.joined())</td></tr>")
        }
        return "<table border=\"1\" cellborder=\"0\" cellspacing=\"0\" cellpadding=\"4\">" + rows.joined() + "</table>"
    }

    /// `Entity.name` and, in grey, the end's order and delete rule.
    private static func dotEndLabel(_ entity: String, _ relationship: RelationshipDescription) -> String {
        html(entity + "." + relationship.name) + " <font color=\"#777777\">\(endNotes(relationship))</font>"
    }

    /// Crow's-foot arrows: a crow for many, a bar for one, and beyond it a circle when the end
    /// may be empty or a second bar when it may not.
    static func crowsFoot(_ relationship: RelationshipDescription) -> String {
        (relationship.isToMany ? "crow" : "tee") + (multiplicity(relationship).hasPrefix("0") ? "odot" : "tee")
    }

    // MARK: Mermaid

    /// Text for a Mermaid label or member: letters, digits, space and `_` as they are, anything
    /// else as Mermaid's `#code;` entity, so that no name can close a block, start an annotation
    /// or generic, end the line, turn an attribute into a method, or hide the `.` between an
    /// entity and a relationship name.
    static func mermaidText(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == " " || scalar == "_" {
                result.unicodeScalars.append(scalar)
            } else {
                result += "#\(scalar.value);"
            }
        }
        return result
    }

    /// `Entity.name (order, delete rule)`.
    private static func mermaidEndLabel(_ entity: String, _ relationship: RelationshipDescription) -> String {
        mermaidText(entity) + "." + mermaidText(relationship.name) + " (" + endNotes(relationship) + ")"
    }

    /// Mermaid class IDs: an entity's own name when it is a plain identifier and not one of the
    /// diagram's keywords, else `entity_N` (with its name as the class's label).
    private struct MermaidIDs {
        private var ids: [String: String] = [:]

        /// Words with a meaning of their own in a class diagram, compared ignoring case.
        static let keywords: Set<String> = [
            "class", "classdiagram", "direction", "note", "namespace", "classdef", "style", "link",
            "click", "callback", "call", "href", "cssclass", "end", "tb", "bt", "lr", "rl",
        ]

        init(entityNames: [String]) {
            let taken = Set(entityNames)
            var counter = 0
            for name in entityNames where ids[name] == nil {
                if Self.isPlainIdentifier(name) && !Self.keywords.contains(name.lowercased()) {
                    ids[name] = name
                    continue
                }
                var id: String
                repeat {
                    counter += 1
                    id = "entity_\(counter)"
                } while taken.contains(id)
                ids[name] = id
            }
        }

        func id(_ name: String) -> String { ids[name] ?? name }

        static func isPlainIdentifier(_ name: String) -> Bool {
            guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic || first == "_" else { return false }
            return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
        }
    }
}

/// What a model diagram shows, worked out once for both languages: the entities, the
/// relationship edges with each pair of inverses joined into one, and the inheritance edges.
package struct ModelGraph {
    /// An entity's box.
    package struct Box {
        package var name: String
        package var isAbstract: Bool
        /// Each attribute's name and its type as the picture prints it (``ModelDiagram/attributeType(_:)``).
        package var attributes: [(name: String, type: String)]
        /// The relationships the entity declares, in model order.
        package var relationships: [RelationshipDescription]
    }

    /// One edge: a relationship declared by `source`, and its inverse when the two name each other.
    package struct Link {
        package var source: String
        package var forward: RelationshipDescription
        /// The inverse, declared by (or inherited into) the forward relationship's destination.
        package var inverse: RelationshipDescription?
    }

    /// One box per entity, in model order.
    package var boxes: [Box]
    /// One edge per relationship or inverse pair, in the order the model declares them.
    package var links: [Link]
    /// (sub-entity, parent) pairs, in model order.
    package var inheritance: [(child: String, parent: String)]

    /// The graph of `model`. A relationship is joined with its inverse only when the inverse
    /// exists (on the destination or one of its ancestors) and names it back; otherwise each is
    /// drawn alone, so a broken model shows what it holds.
    package init(_ model: ManagedObjectModel) {
        boxes = model.entities.map { entity in
            Box(
                name: entity.name, isAbstract: entity.isAbstract,
                attributes: entity.attributes.map { ($0.name, ModelDiagram.attributeType($0)) }, relationships: entity.relationships)
        }
        inheritance = model.entities.compactMap { entity in entity.parentName.map { (entity.name, $0) } }
        links = []
        var drawn = Set<RelationshipKey>()
        for entity in model.entities {
            for relationship in entity.relationships {
                let key = RelationshipKey(entity: entity.name, name: relationship.name)
                guard drawn.insert(key).inserted else { continue }
                var link = Link(source: entity.name, forward: relationship, inverse: nil)
                if let (owner, inverse) = Self.inverse(of: relationship, in: model), inverse.inverseName == relationship.name {
                    let inverseKey = RelationshipKey(entity: owner, name: inverse.name)
                    if inverseKey == key || drawn.insert(inverseKey).inserted {
                        link.inverse = inverse
                    }
                }
                links.append(link)
            }
        }
    }

    private struct RelationshipKey: Hashable {
        var entity: String
        var name: String
    }

    /// The relationship `relationship` names as its inverse and the entity declaring it: the
    /// inverse entity (or else the destination), or the nearest of its ancestors that declares it.
    private static func inverse(of relationship: RelationshipDescription, in model: ManagedObjectModel)
        -> (owner: String, relationship: RelationshipDescription)?
    {
        guard let name = relationship.inverseName else { return nil }
        for entity in model.lineage(of: relationship.inverseEntity ?? relationship.destinationEntity) {
            if let candidate = entity.relationships.first(where: { $0.name == name }) { return (entity.name, candidate) }
        }
        return nil
    }
}
