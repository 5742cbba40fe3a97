import CDArchive
@testable import CDRendering
import CDStore
import CDTestSupport
import Foundation
import Testing

/// Renderers on hand-built objects, so every rule is pinned to an exact string.
@Suite struct ObjectRendererTests {
    static let uuid = "238A239E-E698-409B-80CA-FFFC773E1391"

    static func id(_ entity: String, ent: Int, pk: Int64) -> ObjectID {
        ObjectID(storeUUID: uuid, entity: entity, ent: ent, pk: pk)
    }

    /// 2013-07-18 11:23:30 UTC, the date of example E5 in rendering-and-cli.md.
    static let lastLogin = 395_839_410.0

    static let task = StoredObject(
        id: id("Task", ent: 2, pk: 38), className: "Task",
        values: [
            ("completed", .boolean(false)),
            ("due", .date(lastLogin)),
            ("note", .null),
            ("owner", .object(id("Person", ent: 1, pk: 4))),
            ("priority", .integer(5)),
            ("tags", .objects(members: nil)),
            ("task_description", .string("Go to the bank")),
            ("title", .string("Marie Skłodowska")),
        ])

    @Test func coreDataDescription() {
        var renderer = DescriptionRenderer()
        #expect(
            renderer.render(Self.task) == """
                <Task: 0x60000200000026> (entity: Task; id: 0xd000000000980002 <x-coredata://238A239E-E698-409B-80CA-FFFC773E1391/Task/p38>; data: {
                    completed = 0;
                    due = "2013-07-18 11:23:30 +0000";
                    note = nil;
                    owner = "0xd000000000100001 <x-coredata://238A239E-E698-409B-80CA-FFFC773E1391/Person/p4>";
                    priority = 5;
                    tags = "<relationship fault: 0x60000200000056 'tags'>";
                    "task_description" = "Go to the bank";
                    title = "Marie Sk\\U0142odowska";
                })

                """)
    }

    /// A fired to-many lists its members and cuts the rest off like Core Data (example E4).
    @Test func firedToMany() {
        let members = (1...12).map { Self.id("Card", ent: 3, pk: Int64($0)) }
        let deck = StoredObject(id: Self.id("Deck", ent: 4, pk: 632), className: "Deck", values: [("cards", .objects(members: members))])
        var renderer = DescriptionRenderer(listLimit: 2)
        #expect(
            renderer.render(deck) == """
                <Deck: 0x60000400000278> (entity: Deck; id: 0xd000000009e00004 <x-coredata://238A239E-E698-409B-80CA-FFFC773E1391/Deck/p632>; data: {
                    cards =     (
                        "0xd000000000040003 <x-coredata://238A239E-E698-409B-80CA-FFFC773E1391/Card/p1>",
                        "0xd000000000080003 <x-coredata://238A239E-E698-409B-80CA-FFFC773E1391/Card/p2>",
                        "(...and 10 more...)"
                    );
                })

                """)
    }

    @Test func plistStringQuoting() {
        #expect(DescriptionRenderer.plistString("Gaspi") == "Gaspi")
        #expect(DescriptionRenderer.plistString("localhost") == "localhost")
        #expect(DescriptionRenderer.plistString("267A6D5B-013C") == "\"267A6D5B-013C\"")
        #expect(DescriptionRenderer.plistString("http://42.121.106.113:80/x") == "\"http://42.121.106.113:80/x\"")
        #expect(DescriptionRenderer.plistString("\u{9047}\u{5230}") == "\"\\U9047\\U5230\"")
        #expect(DescriptionRenderer.plistString("say \"hi\"\n") == "\"say \\\"hi\\\"\\n\"")
        #expect(DescriptionRenderer.plistString("") == "\"\"")
    }

    /// The seed app's `to_s`, reproduced by a template.
    @Test func seedTemplate() {
        var renderer = LineRenderer(template: "Priority: {priority} Completed: {completed} Description: '{task_description}'")
        #expect(renderer.render(Self.task) == "Priority: 5 Completed: 0 Description: 'Go to the bank'\n")
        var special = LineRenderer(template: "{_entity} {_pk} {{literal}} {missing} {note}|")
        #expect(special.render(Self.task) == "Task 38 {literal} {missing} |\n")
    }

    @Test func defaultLine() {
        var renderer = LineRenderer()
        #expect(
            renderer.render(Self.task)
                == "Task p38: completed=0 due='2013-07-18 11:23:30 +0000' note='' owner=x-coredata://238A239E-E698-409B-80CA-FFFC773E1391/Person/p4 priority=5 tags=<fault> task_description='Go to the bank' title='Marie Skłodowska'\n"
        )
    }

    @Test func csvQuotesPerRFC4180() {
        var renderer = CSVRenderer(values: PlainValues(null: "NULL"))
        let header = renderer.beginSection(entity: "Task", properties: ["note", "title", "priority"])
        #expect(header == "_entity,_id,note,title,priority\r\n")
        let object = StoredObject(
            id: Self.id("Task", ent: 2, pk: 1), className: "Task",
            values: [
                ("note", .null), ("title", .string("a, \"b\"\nc")), ("priority", .integer(1)),
            ])
        #expect(renderer.render(object) == "Task,x-coredata://238A239E-E698-409B-80CA-FFFC773E1391/Task/p1,NULL,\"a, \"\"b\"\"\nc\",1\r\n")
    }

    @Test func jsonValues() {
        let values = JSONValues(binary: .hex)
        #expect(
            values.object(Self.task)
                == #"{"_entity":"Task","_id":"x-coredata://238A239E-E698-409B-80CA-FFFC773E1391/Task/p38","completed":false,"due":"2013-07-18T11:23:30Z","note":null,"owner":"x-coredata://238A239E-E698-409B-80CA-FFFC773E1391/Person/p4","priority":5,"task_description":"Go to the bank","title":"Marie Skłodowska"}"#
        )
        #expect(values.json(.binary(Data([1, 2, 255]))) == "\"0102ff\"")
        #expect(JSONValues(binary: .omit).json(.binary(Data([1]))) == nil)
        #expect(
            JSONValues(binary: .summary).json(.binary(Data("abc".utf8)))
                == #"{"size":3,"sha256":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}"#)
        #expect(values.json(.double(.nan)) == "null")
        #expect(values.json(.date(0.5)) == "\"2001-01-01T00:00:00.500Z\"")
        #expect(JSONWriterTests.string("tab\tquote\"\u{1}") == #""tab\tquote\"\u0001""#)
        #expect(
            values.json(.transformable(.array([.string("a"), .integer(2), .dictionary([(.string("k"), .boolean(true))])]), size: 10)) == #"["a",2,{"k":true}]"#)
    }

    @Test func jsonArrayAndNDJSON() {
        var array = JSONRenderer()
        #expect(array.finish() == "[]\n")
        var one = JSONRenderer()
        let text = one.render(Self.task) + one.render(Self.task) + one.finish()
        #expect(text.hasPrefix("[\n{") && text.contains("},\n{") && text.hasSuffix("}\n]\n"))
        var lines = NDJSONRenderer()
        #expect(lines.render(Self.task).hasSuffix("}\n"))
    }

    @Test func tableFitsTheTerminal() {
        var table = TableRenderer(values: PlainValues(), terminalWidth: 40, batchSize: 1)
        var out = table.beginSection(entity: "Task", properties: ["priority", "task_description"])
        out += table.render(Self.task)
        out += table.endSection()
        #expect(
            out == """
                Task
                ┌─────┬──────────┬──────────────────┐
                │ _pk │ priority │ task_description │
                ├─────┼──────────┼──────────────────┤
                │ 38  │ 5        │ Go to the bank   │
                └─────┴──────────┴──────────────────┘

                """)
        var narrow = TableRenderer(values: PlainValues(), terminalWidth: 22, batchSize: 1)
        let cut = narrow.beginSection(entity: "Task", properties: ["task_description"]) + narrow.render(Self.task)
        #expect(cut.split(separator: "\n").allSatisfy { $0.count <= 22 })
        #expect(cut.contains("…"))
    }

    /// Widths shrink as if the leftmost widest column lost one character at a time, however
    /// wide a cell is.
    @Test func tableWidthsShrinkOneCharacterAtATime() {
        func oneAtATime(_ natural: [Int], terminalWidth: Int) -> [Int] {
            var widths = natural
            let budget = terminalWidth - (3 * widths.count + 1)
            while widths.reduce(0, +) > budget, let widest = widths.indices.max(by: { widths[$0] < widths[$1] }), widths[widest] > 3 {
                widths[widest] -= 1
            }
            return widths
        }
        for _ in 0..<2000 {
            let natural = (0..<Int.random(in: 0...8)).map { _ in Int.random(in: 1...60) }
            let terminalWidth = Int.random(in: 10...200)
            #expect(TableRenderer.fit(natural, terminalWidth: terminalWidth) == oneAtATime(natural, terminalWidth: terminalWidth))
        }
        #expect(TableRenderer.fit([3, 1_000_000, 5], terminalWidth: 40) == [3, 22, 5])
        #expect(TableRenderer.fit([9, 9, 9], terminalWidth: 30) == [6, 7, 7])
    }

    @Test func expandedBlocks() {
        var renderer = ExpandedRenderer(values: PlainValues(null: "∅"))
        _ = renderer.beginSection(entity: "Task", properties: Self.task.values.map(\.name))
        let text = renderer.render(Self.task)
        #expect(text.hasPrefix("-[ RECORD 1: Task p38 ]--------\ncompleted        | 0\n"))
        #expect(text.contains("\nnote             | ∅\n"))
    }
}
