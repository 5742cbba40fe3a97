import CDPredicate
import Testing

/// `RubyStringEscape`: the escapes of a Ruby double-quoted string, as Ruby reads them.
@Suite struct RubyStringEscapeTests {
    /// The body of a double-quoted string (between the quotes) decoded, or the failure message.
    private func decode(_ body: String) -> Result<String, RubyStringEscape.Failure> {
        let scalars = Array(body.unicodeScalars)
        var buffer = RubyStringBuffer()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "\\" else {
                buffer.append(String(scalar), from: index)
                index += 1
                continue
            }
            do {
                let start = index + 1
                let (decoded, length) = try RubyStringEscape.decode { ahead in
                    start + ahead < scalars.count ? scalars[start + ahead] : nil
                }
                buffer.append(decoded, from: index)
                index = start + length
            } catch {
                return .failure(error)
            }
        }
        guard let decoded = buffer.decoded() else { return .failure(RubyStringEscape.Failure(message: "not UTF-8")) }
        return .success(decoded.value)
    }

    @Test(
        arguments: [
            (#"\n\t\r\s\e\a\b\f\v"#, "\n\t\r \u{1B}\u{07}\u{08}\u{0C}\u{0B}"),
            (##"\\ \" \' \# \q"##, "\\ \" ' # q"),
            (#"\x41\x4a\x7"#, "AJ\u{07}"),
            (#"\x41g"#, "Ag"),
            (#"\101\0\1\18"#, "A\0\u{01}\u{01}8"),
            (#"\xC3\xA9 \303\251"#, "é é"),
            (#"\u00e9\u{1F600}\u{41 42  43}"#, "é😀ABC"),
            ("a\\\nb\\\r\nc", "abc"),
        ] as [(String, String)])
    func decodesAsRuby(_ body: String, _ expected: String) throws {
        #expect(try decode(body).get() == expected)
    }

    @Test(
        arguments: [
            (#"\x"#, "hexadecimal digits after \\x"),
            (#"\xZ"#, "hexadecimal digits after \\x"),
            (#"\u12"#, "four hexadecimal digits"),
            (#"\u{D800}"#, "not a Unicode scalar value"),
            (#"\u{}"#, "holds no code point"),
            (#"\u{41"#, "no closing }"),
            (#"\u{4G}"#, "expected hex digits"),
            (#"\xFF"#, "not UTF-8"),
        ] as [(String, String)])
    func refusesWhatRubyRefuses(_ body: String, _ message: String) {
        guard case .failure(let failure) = decode(body) else {
            Issue.record("\(body) decoded")
            return
        }
        #expect(failure.message.contains(message), "\(failure.message)")
    }

    /// Octal escapes keep the low eight bits, as Ruby does: `\777` is the byte 0xFF.
    @Test func octalKeepsTheLowByte() throws {
        let (decoded, length) = try RubyStringEscape.decode { ahead in Array("777x".unicodeScalars)[ahead] }
        #expect(decoded == .byte(0xFF))
        #expect(length == 3)
    }
}
