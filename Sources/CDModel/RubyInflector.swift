import Foundation

/// The ActiveSupport inflections ruby-xcdm uses to infer the far end of a relationship
/// (docs/format/model-format.md §7): `classify` for the destination entity, `underscore` and
/// `pluralize` for the inverse name.
///
/// This is a small rule set, not ActiveSupport's full table: regular English plurals (`-s`,
/// `-es` after s/x/z/ch/sh, consonant + `y` ↔ `-ies`, `-f`/`-fe` ↔ `-ves`, `-sis` ↔ `-ses`,
/// `-um` ↔ `-a`, `-ix`/`-ex` ↔ `-ices`), the irregular words person, man, woman, child, ox,
/// mouse, louse, and the uncountable words equipment, information, rice, money, species,
/// series, fish, sheep, jeans, police. Unusual words may inflect differently from Rails; give
/// such relationships an explicit `inverse:`.
enum RubyInflector {
    /// `"articles"` → `"Article"`, `"created_by"` → `"CreatedBy"`: singular, camel-cased, with
    /// anything up to the last `.` dropped.
    static func classify(_ word: String) -> String {
        let lastPart = word.split(separator: ".", omittingEmptySubsequences: false).last.map(String.init) ?? word
        return camelize(singularize(lastPart))
    }

    /// `"FailedBankInfo"` → `"failed_bank_info"`, `"HTTPRequest"` → `"http_request"`.
    static func underscore(_ word: String) -> String {
        var text = word.replacingOccurrences(of: "::", with: "/")
        text = replacing("([A-Z\\d]+)([A-Z][a-z])", in: text, with: "$1_$2", caseInsensitive: false)
        text = replacing("([a-z\\d])([A-Z])", in: text, with: "$1_$2", caseInsensitive: false)
        return text.replacingOccurrences(of: "-", with: "_").lowercased()
    }

    /// `"to_do_item"` → `"ToDoItem"`: the leading lower-case run and every `_`-separated part
    /// capitalised the way Ruby's `capitalize` does (first letter up, the rest down).
    static func camelize(_ word: String) -> String {
        var parts = word.split(separator: "_", omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first else { return word }
        let leadingLowercase = first.prefix { $0.isLowercase || $0.isNumber }
        parts[0] = capitalized(String(leadingLowercase)) + first.dropFirst(leadingLowercase.count)
        for index in parts.indices.dropFirst() {
            let run = parts[index].prefix { $0.isLetter || $0.isNumber }
            parts[index] = capitalized(String(run)) + parts[index].dropFirst(run.count)
        }
        return parts.joined()
    }

    static func pluralize(_ word: String) -> String {
        inflect(word, irregular: irregular, rules: pluralRules)
    }

    static func singularize(_ word: String) -> String {
        inflect(word, irregular: irregular.map { ($0.1, $0.0) }, rules: singularRules)
    }

    private static let uncountable: Set<String> = [
        "equipment", "information", "rice", "money", "species", "series", "fish", "sheep", "jeans", "police",
    ]

    /// Singular and plural of the irregular words, matched as whole words.
    private static let irregular: [(String, String)] = [
        ("person", "people"), ("man", "men"), ("woman", "women"), ("child", "children"),
        ("ox", "oxen"), ("mouse", "mice"), ("louse", "lice"),
    ]

    /// Suffix patterns and templates; the first match wins.
    private static let pluralRules: [(String, String)] = [
        ("(quiz)$", "$1zes"),
        ("(matr|vert|ind)(ix|ex)$", "$1ices"),
        ("(x|ch|ss|sh|z)$", "$1es"),
        ("(alias|status|bus)$", "$1es"),
        ("(octop|vir)us$", "$1i"),
        ("([^aeiouy]|qu)y$", "$1ies"),
        ("(hive)$", "$1s"),
        ("([lr])f$", "$1ves"),
        ("([^f])fe$", "$1ves"),
        ("sis$", "ses"),
        ("([ti])um$", "$1a"),
        ("(buffal|tomat|her|potat)o$", "$1oes"),
        ("s$", "s"),
        ("$", "s"),
    ]

    private static let singularRules: [(String, String)] = [
        ("(quiz)zes$", "$1"),
        ("(matr)ices$", "$1ix"),
        ("(vert|ind)ices$", "$1ex"),
        ("(alias|status|bus)(es)?$", "$1"),
        ("(octop|vir)(us|i)$", "$1us"),
        ("(x|ch|ss|sh|zz)es$", "$1"),
        ("(m)ovies$", "$1ovie"),
        ("([^aeiouy]|qu)ies$", "$1y"),
        ("(hive|tive)s$", "$1"),
        ("([lr])ves$", "$1f"),
        ("([^f])ves$", "$1fe"),
        ("(analy|ba|diagno|parenthe|progno|synop|the)ses$", "$1sis"),
        ("([ti])a$", "$1um"),
        ("(buffal|tomat|her|potat)oes$", "$1o"),
        ("(n)ews$", "$1ews"),
        ("(ss|us|is)$", "$1"),
        ("s$", ""),
    ]

    private static func inflect(_ word: String, irregular: [(String, String)], rules: [(String, String)]) -> String {
        let lower = word.lowercased()
        if word.isEmpty || uncountable.contains(lower) { return word }
        if let (_, replacement) = irregular.first(where: { $0.0 == lower }) {
            return String(word.prefix(1)) + replacement.dropFirst()
        }
        for (pattern, template) in rules where matches(pattern, word) {
            return replacing(pattern, in: word, with: template, caseInsensitive: true)
        }
        return word
    }

    private static func capitalized(_ word: String) -> String {
        word.prefix(1).uppercased() + word.dropFirst().lowercased()
    }

    private static func expression(_ pattern: String, caseInsensitive: Bool) -> NSRegularExpression? {
        try? NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : [])
    }

    private static func matches(_ pattern: String, _ word: String) -> Bool {
        expression(pattern, caseInsensitive: true)?
            .firstMatch(in: word, range: NSRange(word.startIndex..., in: word)) != nil
    }

    private static func replacing(_ pattern: String, in word: String, with template: String, caseInsensitive: Bool) -> String {
        guard let regex = expression(pattern, caseInsensitive: caseInsensitive) else { return word }
        return regex.stringByReplacingMatches(in: word, range: NSRange(word.startIndex..., in: word), withTemplate: template)
    }
}
