import CDBase
import Testing

/// Colour on a terminal: when it is on, and what each line of a report gets.
@Suite struct TerminalColorTests {
    let bold = "\u{1B}[1m", yellow = "\u{1B}[33m", red = "\u{1B}[31m", dim = "\u{1B}[2m", reset = "\u{1B}[0m"

    @Test func whenColourIsOn() {
        #expect(ColorMode.auto.colors(streamIsTerminal: true, environment: [:]))
        #expect(!ColorMode.auto.colors(streamIsTerminal: false, environment: [:]))
        // NO_COLOR: any value but the empty string turns colour off, even "0" or "false".
        #expect(!ColorMode.auto.colors(streamIsTerminal: true, environment: ["NO_COLOR": "1"]))
        #expect(!ColorMode.auto.colors(streamIsTerminal: true, environment: ["NO_COLOR": "0"]))
        #expect(ColorMode.auto.colors(streamIsTerminal: true, environment: ["NO_COLOR": ""]))
        // The option wins over the variable and the terminal.
        #expect(ColorMode.always.colors(streamIsTerminal: false, environment: ["NO_COLOR": "1"]))
        #expect(!ColorMode.never.colors(streamIsTerminal: true, environment: [:]))
    }

    @Test func styles() {
        #expect(TextStyle.heading.apply("Files") == "\u{1B}[1mFiles\u{1B}[0m")
        #expect(TextStyle.warning.apply("w") == "\u{1B}[33mw\u{1B}[0m")
        #expect(TextStyle.error.apply("e") == "\u{1B}[31me\u{1B}[0m")
        #expect(TextStyle.secondary.apply("s") == "\u{1B}[2ms\u{1B}[0m")
    }

    @Test func reportLines() {
        let report = """
            Store: /tmp/a.sqlite

            Files
              ROLE  FILE
              main  a.sqlite

            Warnings
              - the header says WAL mode
              - second warning

            Integrity
              none
              warning: something odd
              error: something wrong
            Result: no problems found.
            See cdstore-troubleshooting(7).
            """
        let expected = """
            Store: /tmp/a.sqlite

            \(bold)Files\(reset)
              ROLE  FILE
              main  a.sqlite

            \(bold)Warnings\(reset)
              \(yellow)- the header says WAL mode\(reset)
              \(yellow)- second warning\(reset)

            \(bold)Integrity\(reset)
              \(dim)none\(reset)
              \(yellow)warning: something odd\(reset)
              \(red)error: something wrong\(reset)
            Result: no problems found.
            \(dim)See cdstore-troubleshooting(7).\(reset)
            """
        #expect(ReportColors.apply(toReport: report) == expected)
    }

    /// A Warnings section with nothing in it says so dimly; the section ends at the next line at
    /// the margin, and lint's findings are warnings.
    @Test func warningSectionsEnd() {
        let report = "Warnings\n  none\nAfter\n  - not a warning\nVersion v (current): 2 findings\n  A.b does not have an inverse"
        #expect(
            ReportColors.apply(toReport: report)
                == "\(bold)Warnings\(reset)\n  \(dim)none\(reset)\n\(bold)After\(reset)\n  - not a warning\n"
                + "\(bold)Version v (current): 2 findings\(reset)\n  \(yellow)A.b does not have an inverse\(reset)")
    }

    @Test func messages() {
        let message = "cdstore: error: bad\n  detail\nhint: try this\ncdstore: warning: careful\nUsage: cdstore x\n"
        #expect(
            ReportColors.apply(toMessage: message)
                == "\(red)cdstore: error: bad\(reset)\n  detail\n\(dim)hint: try this\(reset)\n\(yellow)cdstore: warning: careful\(reset)\nUsage: cdstore x\n")
    }
}
