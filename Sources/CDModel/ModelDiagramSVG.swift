import Foundation

extension ModelDiagram {
    /// The SVG picture of `version`, laid out by cdstore itself (``SVGDiagram``), so that it needs
    /// no Graphviz: the same boxes and edges as ``dot(_:)``, with crow's-foot markers at each end.
    package static func svg(_ version: ModelVersion) -> String {
        SVGDiagram(ModelGraph(version.model)).render(title: version.name)
    }
}

/// A ``ModelGraph`` as a self-contained SVG document: a box per entity (its name, its attributes
/// with their types, its relationships with their destinations and multiplicities), a dashed edge
/// with a hollow triangle from each sub-entity to its parent, and one edge per relationship or
/// inverse pair, with a crow's foot (to-many) or a bar (to-one) at each end, a circle when the end
/// may be empty, and the relationship names as its label.
///
/// The document is meant to be inlined in a web page under a strict Content-Security-Policy as
/// well as opened on its own: it has no script, no event attribute, no link, no external font or
/// image, and no `<style>` element or `style` attribute (a policy's `style-src` governs those but
/// not presentation attributes such as `fill`). Every name comes from the model, which is
/// untrusted input, and goes through ``ModelDiagram/html(_:)``. Boxes and edges carry `class` and
/// `data-` attributes naming what they draw, for a page's stylesheet and for tests.
///
/// Layout, deterministic and without overlaps by construction: boxes are ordered by connectivity
/// (breadth-first from the most connected entity, the closest neighbours first; each further
/// group of connected entities from its own most connected one), then dealt in that order into
/// columns, each box going to the bottom of the shortest column, so that a very tall entity
/// (Photos' Asset lists 130 properties) does not stretch a whole row. The number of columns
/// makes the picture about half again as wide as it is tall. Edges are straight, drawn beneath
/// the boxes; each label goes to the first of a few places along its edge that covers no box
/// and no other label (or, where no place is clear of the boxes, beneath them).
struct SVGDiagram {
    /// A point in SVG user units (CSS pixels), y growing downwards.
    struct Point {
        var x: Double
        var y: Double
    }

    /// A rectangle in SVG user units.
    struct Rect {
        var x: Double
        var y: Double
        var width: Double
        var height: Double

        var maxX: Double { x + width }
        var maxY: Double { y + height }
        var center: Point { Point(x: x + width / 2, y: y + height / 2) }

        func intersects(_ other: Rect) -> Bool { x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY }

        func outset(by distance: Double) -> Rect {
            Rect(x: x - distance, y: y - distance, width: width + 2 * distance, height: height + 2 * distance)
        }
    }

    /// Sizes. A monospace font advances 0.6 em in Menlo, DejaVu Sans Mono and Courier, 0.55 em in
    /// Consolas; widths are estimated at 0.625 em so that text stays inside its box whichever of
    /// them the viewer has.
    enum Metrics {
        static let fontFamily = "ui-monospace, Menlo, Consolas, 'DejaVu Sans Mono', 'Liberation Mono', monospace"
        static let fontSize = 12.0
        static let characterWidth = fontSize * 0.625
        static let labelFontSize = 11.0
        static let labelCharacterWidth = labelFontSize * 0.625
        static let labelLineHeight = 13.0
        static let lineHeight = 16.0
        /// From the top of a line to its text's baseline.
        static let baseline = 12.0
        static let padding = 8.0
        static let sectionPadding = 4.0
        static let minimumBoxWidth = 96.0
        static let columnGap = 120.0
        static let rowGap = 48.0
        static let margin = 24.0
        /// Between parallel edges joining the same two boxes.
        static let laneSpacing = 14.0
        /// How far a relationship to its own entity loops out of the box's right side.
        static let loopReach = 36.0
        /// Width over height the column count aims at.
        static let aspectRatio = 1.5
    }

    /// An entity's box: its lines of text and where it stands.
    struct Box {
        var name: String
        /// `entity`, `entity abstract`, or `missing-entity` for a name the model uses but does not define.
        var kind: String
        /// The title lines: a stereotype or note, and the name.
        var header: [String]
        /// Attributes, then relationships; empty sections are left out.
        var sections: [[String]]
        var frame: Rect
        var headerHeight: Double
    }

    /// A line between two boxes (or a loop on one).
    struct Edge {
        enum Kind {
            case relationship(ModelGraph.Link)
            case inheritance
        }

        var kind: Kind
        var from: Int
        var to: Int
    }

    /// An edge's drawing: its path, where its label may go, and its markers.
    struct Route {
        var path: String
        var labelCandidates: [Point]
        var extent: Rect
    }

    var boxes: [Box]
    var edges: [Edge]
    var size: (width: Double, height: Double) = (0, 0)
    var routes: [Route] = []
    /// Each edge's label frame (relationship edges only).
    var labels: [Int: (lines: [String], frame: Rect)] = [:]
    /// The edges whose label found no place clear of the boxes: drawn beneath them, so as not to
    /// hide what a box says (which lists the relationship anyway).
    var labelsUnderBoxes: Set<Int> = []

    init(_ graph: ModelGraph) {
        var boxes = graph.boxes.map { box in
            Self.makeBox(
                name: box.name, kind: box.isAbstract ? "entity abstract" : "entity", header: box.isAbstract ? ["«abstract»", box.name] : [box.name],
                sections: [
                    box.attributes.map { "\($0.name): \($0.type)" },
                    box.relationships.map { "\($0.name) → \($0.destinationEntity) \(ModelDiagram.multiplicity($0))" },
                ])
        }
        var index: [String: Int] = [:]
        for (position, box) in boxes.enumerated() where index[box.name] == nil { index[box.name] = position }
        // A broken model may point at an entity it does not define: it gets a box of its own.
        func box(named name: String) -> Int {
            if let position = index[name] { return position }
            boxes.append(Self.makeBox(name: name, kind: "missing-entity", header: [name, "(not in the model)"], sections: []))
            index[name] = boxes.count - 1
            return boxes.count - 1
        }
        var edges: [Edge] = []
        for link in graph.links {
            edges.append(Edge(kind: .relationship(link), from: box(named: link.source), to: box(named: link.forward.destinationEntity)))
        }
        for (child, parent) in graph.inheritance {
            edges.append(Edge(kind: .inheritance, from: box(named: child), to: box(named: parent)))
        }
        self.boxes = boxes
        self.edges = edges
        placeBoxes()
        routeEdges()
        placeLabels()
        measureCanvas()
    }

    // MARK: Boxes

    /// Columns of text `text` takes: two for scalars from U+1100 on (wide scripts, emoji) and for
    /// control characters (shown as U+FFFD), one otherwise; never less than it shows.
    static func columns(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + ((0x20..<0x1100).contains($1.value) ? 1 : 2) }
    }

    static func makeBox(name: String, kind: String, header: [String], sections: [[String]]) -> Box {
        let sections = sections.filter { !$0.isEmpty }
        let widest = (header + sections.joined()).map(columns).max() ?? 0
        let width = max(Metrics.minimumBoxWidth, (Double(widest) * Metrics.characterWidth + 2 * Metrics.padding).rounded(.up))
        let headerHeight = Double(header.count) * Metrics.lineHeight + 2 * Metrics.sectionPadding
        let height = sections.reduce(headerHeight) { $0 + Double($1.count) * Metrics.lineHeight + 2 * Metrics.sectionPadding }
        return Box(
            name: name, kind: kind, header: header, sections: sections, frame: Rect(x: 0, y: 0, width: width, height: height), headerHeight: headerHeight)
    }

    /// The boxes in connectivity order: breadth-first from the most connected box, neighbours
    /// joined by more edges (then more connected, then earlier in the model) first.
    func connectivityOrder() -> [Int] {
        var weights = Array(repeating: [Int: Int](), count: boxes.count)
        for edge in edges where edge.from != edge.to {
            weights[edge.from][edge.to, default: 0] += 1
            weights[edge.to][edge.from, default: 0] += 1
        }
        let degrees = weights.map { $0.values.reduce(0, +) }
        var placed = Array(repeating: false, count: boxes.count)
        var order: [Int] = []
        while let start = placed.indices.filter({ !placed[$0] }).max(by: { degrees[$0] < degrees[$1] }) {
            placed[start] = true
            var queue = [start]
            while let current = queue.first {
                queue.removeFirst()
                order.append(current)
                let neighbours = weights[current].keys.filter { !placed[$0] }.sorted { left, right in
                    let leftWeight = weights[current][left, default: 0], rightWeight = weights[current][right, default: 0]
                    if leftWeight != rightWeight { return leftWeight > rightWeight }
                    if degrees[left] != degrees[right] { return degrees[left] > degrees[right] }
                    return left < right
                }
                for neighbour in neighbours { placed[neighbour] = true }
                queue += neighbours
            }
        }
        return order
    }

    /// Deals the boxes into columns (see the type's comment); a box is centred in its column.
    mutating func placeBoxes() {
        guard !boxes.isEmpty else { return }
        let area = boxes.reduce(0) { $0 + ($1.frame.width + Metrics.columnGap) * ($1.frame.height + Metrics.rowGap) }
        let averageWidth = boxes.reduce(0) { $0 + $1.frame.width + Metrics.columnGap } / Double(boxes.count)
        let columnCount = min(boxes.count, max(1, Int(((area * Metrics.aspectRatio).squareRoot() / averageWidth).rounded())))
        var heights = Array(repeating: 0.0, count: columnCount)
        var columnOfBox = Array(repeating: 0, count: boxes.count)
        for box in connectivityOrder() {
            let column = heights.indices.min { heights[$0] < heights[$1] } ?? 0
            columnOfBox[box] = column
            boxes[box].frame.y = Metrics.margin + heights[column]
            heights[column] += boxes[box].frame.height + Metrics.rowGap
        }
        var widths = Array(repeating: 0.0, count: columnCount)
        for (box, column) in columnOfBox.enumerated() { widths[column] = max(widths[column], boxes[box].frame.width) }
        var left = Metrics.margin
        var lefts: [Double] = []
        for width in widths {
            lefts.append(left)
            left += width + Metrics.columnGap
        }
        for (box, column) in columnOfBox.enumerated() {
            boxes[box].frame.x = lefts[column] + (widths[column] - boxes[box].frame.width) / 2
        }
    }

    // MARK: Edges

    /// Where the segment from `point` (inside `rect`) towards `target` leaves `rect`.
    static func exit(from point: Point, toward target: Point, of rect: Rect) -> Point {
        let dx = target.x - point.x, dy = target.y - point.y
        var fraction = 1.0
        if dx > 0 { fraction = min(fraction, (rect.maxX - point.x) / dx) }
        if dx < 0 { fraction = min(fraction, (rect.x - point.x) / dx) }
        if dy > 0 { fraction = min(fraction, (rect.maxY - point.y) / dy) }
        if dy < 0 { fraction = min(fraction, (rect.y - point.y) / dy) }
        return Point(x: point.x + fraction * dx, y: point.y + fraction * dy)
    }

    /// A path for every edge: a straight segment between the two boxes' borders, parallel ones
    /// side by side, or a loop out of the right side of a box for an edge to itself.
    mutating func routeEdges() {
        var laneCounts: [[Int]: Int] = [:]
        var lanes: [Int] = []
        for edge in edges {
            let key = [min(edge.from, edge.to), max(edge.from, edge.to)]
            lanes.append(laneCounts[key, default: 0])
            laneCounts[key, default: 0] += 1
        }
        routes = edges.enumerated().map { position, edge in
            let laneCount = laneCounts[[min(edge.from, edge.to), max(edge.from, edge.to)]] ?? 1
            return edge.from == edge.to
                ? loop(on: boxes[edge.from].frame, lane: lanes[position], of: laneCount)
                : segment(from: edge.from, to: edge.to, lane: lanes[position], of: laneCount)
        }
    }

    func segment(from source: Int, to destination: Int, lane: Int, of laneCount: Int) -> Route {
        // Lanes are counted across the pair in one direction whichever way each edge goes.
        let low = boxes[min(source, destination)].frame, high = boxes[max(source, destination)].frame
        let dx = high.center.x - low.center.x, dy = high.center.y - low.center.y
        let length = max((dx * dx + dy * dy).squareRoot(), 1)
        let normal = Point(x: -dy / length, y: dx / length)
        let limit = max(0, min(low.width, low.height, high.width, high.height) / 2 - 6)
        let offset = min(limit, max(-limit, (Double(lane) - Double(laneCount - 1) / 2) * Metrics.laneSpacing))
        let lowCenter = Point(x: low.center.x + normal.x * offset, y: low.center.y + normal.y * offset)
        let highCenter = Point(x: high.center.x + normal.x * offset, y: high.center.y + normal.y * offset)
        var start = Self.exit(from: lowCenter, toward: highCenter, of: low)
        var end = Self.exit(from: highCenter, toward: lowCenter, of: high)
        if source > destination { swap(&start, &end) }
        // From the middle outwards: 0.5, 0.45, 0.55, 0.4, … 0.1, 0.9; on the line, then beside it.
        let fractions: [Double] = [0.5] + (1...8).flatMap { (step: Int) -> [Double] in [0.5 - Double(step) * 0.05, 0.5 + Double(step) * 0.05] }
        let candidates = [0.0, 10, -10, 20, -20].flatMap { (shift: Double) -> [Point] in
            fractions.map { Point(x: start.x + (end.x - start.x) * $0 + normal.x * shift, y: start.y + (end.y - start.y) * $0 + normal.y * shift) }
        }
        let extent = Rect(x: min(start.x, end.x), y: min(start.y, end.y), width: abs(end.x - start.x), height: abs(end.y - start.y))
        return Route(
            path: "M\(Self.number(start.x)),\(Self.number(start.y)) L\(Self.number(end.x)),\(Self.number(end.y))", labelCandidates: candidates, extent: extent)
    }

    func loop(on frame: Rect, lane: Int, of laneCount: Int) -> Route {
        let step = min(24, (frame.height - 8) / Double(laneCount))
        let top = frame.y + 4 + Double(lane) * step + step * 0.2, bottom = top + step * 0.6
        let reach = frame.maxX + Metrics.loopReach
        let path =
            "M\(Self.number(frame.maxX)),\(Self.number(top)) C\(Self.number(reach)),\(Self.number(top - 8)) "
            + "\(Self.number(reach)),\(Self.number(bottom + 8)) \(Self.number(frame.maxX)),\(Self.number(bottom))"
        let middle = (top + bottom) / 2
        let candidates = [0.0, -16, 16, -32, 32].map { Point(x: reach + 4, y: middle + $0) }
        return Route(path: path, labelCandidates: candidates, extent: Rect(x: frame.maxX, y: top - 8, width: Metrics.loopReach, height: bottom - top + 16))
    }

    // MARK: Labels

    /// The ways to write a link's label: `name`, or for a pair `name / inverse name` on one line
    /// or on two (`name /`, `inverse name`), which fits between columns more often.
    static func labelLayouts(_ link: ModelGraph.Link) -> [[String]] {
        guard let inverse = link.inverse, inverse.name != link.forward.name || link.forward.destinationEntity != link.source else {
            return [[link.forward.name]]
        }
        return [[link.forward.name + " / " + inverse.name], [link.forward.name + " /", inverse.name]]
    }

    /// Puts each relationship label at its edge's first candidate place, in one of its layouts,
    /// that covers no box and no label placed before, else the first that covers no box, else
    /// at the first candidate in one line beneath the boxes. A loop's label starts at its point;
    /// a segment's is centred on it.
    mutating func placeLabels() {
        let boxFrames = boxes.map { $0.frame.outset(by: 2) }
        var taken = boxFrames
        for (position, edge) in edges.enumerated() {
            guard case .relationship(let link) = edge.kind else { continue }
            let isLoop = edge.from == edge.to
            let choices = Self.labelLayouts(link).map { lines in
                let width = Double(lines.map(Self.columns).max() ?? 0) * Metrics.labelCharacterWidth + 6
                let height = Double(lines.count) * Metrics.labelLineHeight + 2
                return routes[position].labelCandidates.map { point in
                    (lines, Rect(x: isLoop ? point.x : point.x - width / 2, y: point.y - height / 2, width: width, height: height))
                }
            }.joined()
            guard let first = choices.first else { continue }
            let clear =
                choices.first { choice in !taken.contains { $0.intersects(choice.1) } }
                ?? choices.first { choice in !boxFrames.contains { $0.intersects(choice.1) } }
            let (lines, frame) = clear ?? first
            if clear == nil { labelsUnderBoxes.insert(position) }
            labels[position] = (lines, frame)
            taken.append(frame.outset(by: 2))
        }
    }

    mutating func measureCanvas() {
        let frames = boxes.map(\.frame) + routes.map(\.extent) + labels.values.map(\.frame)
        size = (
            ((frames.map(\.maxX).max() ?? 0) + Metrics.margin).rounded(.up),
            ((frames.map(\.maxY).max() ?? 0) + Metrics.margin).rounded(.up)
        )
    }

    // MARK: Drawing

    /// `value` to one decimal, without a trailing `.0`: `12`, `7.5`.
    static func number(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        let sign = tenths < 0 ? "-" : "", magnitude = abs(tenths)
        return sign + String(magnitude / 10) + (magnitude % 10 == 0 ? "" : "." + String(magnitude % 10))
    }

    static let stroke = "#555555"

    /// The crow's-foot markers (named as ``ModelDiagram/crowsFoot(_:)`` names them) and the
    /// inheritance triangle. Each marker's box ends where the line meets the entity's border
    /// (`refX`), and `auto-start-reverse` turns a start marker to face its box too.
    static let markers: [String] = {
        let crow = "<path d=\"M20,-6 L8,0 L20,6 M8,0 H20\" fill=\"none\" stroke=\"\(stroke)\"/>"
        let innerBar = "<path d=\"M15,-6 V6\" fill=\"none\" stroke=\"\(stroke)\"/>"
        let outerBar = "<path d=\"M4,-6 V6\" fill=\"none\" stroke=\"\(stroke)\"/>"
        let circle = "<circle cx=\"4\" cy=\"0\" r=\"3.5\" fill=\"#ffffff\" stroke=\"\(stroke)\"/>"
        let ends = [("crowodot", crow + circle), ("crowtee", crow + outerBar), ("teeodot", innerBar + circle), ("teetee", innerBar + outerBar)]
        return ends.map { name, shapes in
            "<marker id=\"cdstore-\(name)\" viewBox=\"0 -8 20 16\" refX=\"20\" refY=\"0\" markerWidth=\"20\" markerHeight=\"16\" "
                + "markerUnits=\"userSpaceOnUse\" orient=\"auto-start-reverse\">\(shapes)</marker>"
        } + [
            "<marker id=\"cdstore-parent\" viewBox=\"0 -7 14 14\" refX=\"14\" refY=\"0\" markerWidth=\"14\" markerHeight=\"14\" "
                + "markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0,-7 L14,0 L0,7 Z\" fill=\"#ffffff\" stroke=\"\(stroke)\"/></marker>"
        ]
    }()

    /// `Entity.name → Destination 0..* (ordered, cascade)`, for an edge's tooltip.
    static func endDescription(_ entity: String, _ relationship: RelationshipDescription) -> String {
        "\(entity).\(relationship.name) → \(relationship.destinationEntity) \(ModelDiagram.multiplicity(relationship)) (\(ModelDiagram.endNotes(relationship)))"
    }

    func render(title: String) -> String {
        let html = ModelDiagram.html
        let width = Self.number(size.width), height = Self.number(size.height)
        var lines = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" "
                + "font-family=\"\(Metrics.fontFamily)\" font-size=\"\(Self.number(Metrics.fontSize))\" fill=\"#222222\">",
            "<title>\(html(title))</title>",
            "<defs>",
        ]
        lines += Self.markers
        lines += ["</defs>", "<rect width=\"\(width)\" height=\"\(height)\" fill=\"#ffffff\"/>", "<g class=\"edges\">"]
        for (edge, route) in zip(edges, routes) {
            let from = html(boxes[edge.from].name), to = html(boxes[edge.to].name)
            switch edge.kind {
            case .inheritance:
                lines.append("<g class=\"inheritance\" data-entity=\"\(from)\" data-parent=\"\(to)\">")
                lines.append("<title>\(from) is a kind of \(to)</title>")
                lines.append("<path d=\"\(route.path)\" fill=\"none\" stroke=\"\(Self.stroke)\" stroke-dasharray=\"6 4\" marker-end=\"url(#cdstore-parent)\"/>")
            case .relationship(let link):
                var attributes = "data-source=\"\(from)\" data-name=\"\(html(link.forward.name))\" data-destination=\"\(to)\""
                var tooltip = Self.endDescription(link.source, link.forward)
                var markers = "marker-end=\"url(#cdstore-\(ModelDiagram.crowsFoot(link.forward)))\""
                if let inverse = link.inverse {
                    attributes += " data-inverse=\"\(html(inverse.name))\""
                    tooltip += " / " + Self.endDescription(link.forward.destinationEntity, inverse)
                    markers = "marker-start=\"url(#cdstore-\(ModelDiagram.crowsFoot(inverse)))\" " + markers
                }
                lines.append("<g class=\"relationship\" \(attributes)>")
                lines.append("<title>\(html(tooltip))</title>")
                lines.append("<path d=\"\(route.path)\" fill=\"none\" stroke=\"\(Self.stroke)\" \(markers)/>")
            }
            lines.append("</g>")
        }
        lines.append("</g>")
        lines += drawLabels { labelsUnderBoxes.contains($0) }
        lines.append("<g class=\"entities\">")
        for box in boxes { lines += draw(box) }
        lines.append("</g>")
        lines += drawLabels { !labelsUnderBoxes.contains($0) }
        lines.append("</svg>")
        return lines.joined(separator: "\n")
    }

    /// A group of the labels of the edges `included` picks.
    func drawLabels(_ included: (Int) -> Bool) -> [String] {
        var output = ["<g class=\"labels\" font-size=\"\(Self.number(Metrics.labelFontSize))\" fill=\"#444444\">"]
        for position in edges.indices where included(position) {
            guard let (lines, frame) = labels[position] else { continue }
            output.append(
                "<rect x=\"\(Self.number(frame.x))\" y=\"\(Self.number(frame.y))\" width=\"\(Self.number(frame.width))\" "
                    + "height=\"\(Self.number(frame.height))\" fill=\"#ffffff\" fill-opacity=\"0.85\"/>")
            let x = Self.number(frame.x + 3)
            let baseline = frame.y + Metrics.labelLineHeight - 2
            if let only = lines.first, lines.count == 1 {
                output.append("<text x=\"\(x)\" y=\"\(Self.number(baseline))\">\(ModelDiagram.html(only))</text>")
            } else {
                let spans = lines.enumerated().map { index, line in
                    "<tspan x=\"\(x)\" y=\"\(Self.number(baseline + Double(index) * Metrics.labelLineHeight))\">\(ModelDiagram.html(line))</tspan>"
                }
                output.append("<text>" + spans.joined() + "</text>")
            }
        }
        output.append("</g>")
        return output
    }

    func draw(_ box: Box) -> [String] {
        let html = ModelDiagram.html
        let frame = box.frame
        let isAbstract = box.kind.hasSuffix("abstract"), isMissing = box.kind == "missing-entity"
        let textX = Self.number(frame.x + Metrics.padding)
        let outline = "stroke=\"\(Self.stroke)\"" + (isMissing ? " stroke-dasharray=\"4 3\"" : "")
        var lines = [
            "<g class=\"\(box.kind)\" data-entity=\"\(html(box.name))\">",
            "<rect x=\"\(Self.number(frame.x))\" y=\"\(Self.number(frame.y))\" width=\"\(Self.number(frame.width))\" "
                + "height=\"\(Self.number(frame.height))\" fill=\"#ffffff\" \(outline)/>",
            "<rect x=\"\(Self.number(frame.x))\" y=\"\(Self.number(frame.y))\" width=\"\(Self.number(frame.width))\" "
                + "height=\"\(Self.number(box.headerHeight))\" fill=\"\(isAbstract || isMissing ? "#eeeeee" : "#dce6f2")\" \(outline)/>",
        ]
        var top = frame.y + Metrics.sectionPadding
        for (position, text) in box.header.enumerated() {
            let isName = position == box.header.count - 1 && !isMissing || position == 0 && isMissing
            let style = isName ? " font-weight=\"bold\"" + (isAbstract ? " font-style=\"italic\"" : "") : ""
            lines.append("<text x=\"\(textX)\" y=\"\(Self.number(top + Metrics.baseline))\"\(style)>\(html(text))</text>")
            top += Metrics.lineHeight
        }
        top += Metrics.sectionPadding
        for (position, section) in box.sections.enumerated() {
            if position > 0 {
                lines.append("<path d=\"M\(Self.number(frame.x)),\(Self.number(top)) H\(Self.number(frame.maxX))\" stroke=\"\(Self.stroke)\"/>")
            }
            top += Metrics.sectionPadding
            for text in section {
                lines.append("<text x=\"\(textX)\" y=\"\(Self.number(top + Metrics.baseline))\">\(html(text))</text>")
                top += Metrics.lineHeight
            }
            top += Metrics.sectionPadding
        }
        lines.append("</g>")
        return lines
    }
}
