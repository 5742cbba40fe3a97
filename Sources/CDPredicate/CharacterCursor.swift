/// A hand-written tokenizer's place in its text, read one Character at a time: the scaffolding
/// the NSPredicate and CDQ tokenizers share (look-ahead, literal matching, errors that point
/// into the text).
package struct CharacterCursor {
    /// The text as given, for error messages.
    package let text: String
    package let characters: [Character]
    /// Offset of the next Character to read.
    package var position = 0

    package init(_ text: String) {
        self.text = text
        self.characters = Array(text)
    }

    /// The Character `ahead` places after the current one, or nil past the end.
    package func peek(_ ahead: Int = 0) -> Character? {
        position + ahead < characters.count ? characters[position + ahead] : nil
    }

    /// Whether the text at the current position starts with `literal`.
    package func matches(_ literal: String) -> Bool {
        for (index, character) in literal.enumerated() where peek(index) != character { return false }
        return true
    }

    package mutating func skipWhitespace() {
        while let c = peek(), c.isWhitespace { position += 1 }
    }

    /// The source text of a Character range.
    package func source(_ range: Range<Int>) -> String { String(characters[range]) }

    package func error(_ message: String, at offset: Int) -> PredicateError {
        PredicateError(text: text, offset: offset, message: message)
    }
}

/// A tokenizer over a ``CharacterCursor`` that returns tokens one at a time until an end token.
package protocol CursorTokenizer {
    associatedtype Token
    init(_ text: String)
    var cursor: CharacterCursor { get set }
    mutating func next() throws(PredicateError) -> Token
    /// Whether `token` is the end of the text (the last token returned).
    static func isEnd(_ token: Token) -> Bool
}

extension CursorTokenizer {
    package var characters: [Character] { cursor.characters }

    package var position: Int {
        get { cursor.position }
        set { cursor.position = newValue }
    }

    package func peek(_ ahead: Int = 0) -> Character? { cursor.peek(ahead) }

    package func error(_ message: String, at offset: Int) -> PredicateError { cursor.error(message, at: offset) }

    /// Every token of `text`, the end token last.
    package static func tokenize(_ text: String) throws(PredicateError) -> [Token] {
        var tokenizer = Self(text)
        var tokens: [Token] = []
        while true {
            let token = try tokenizer.next()
            tokens.append(token)
            if isEnd(token) { return tokens }
        }
    }
}
