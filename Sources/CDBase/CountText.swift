/// Thousands separators, as people read byte and row counts: 1,763,392.
package func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (index, character) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
        result.append(character)
    }
    return (value < 0 ? "-" : "") + result
}

/// A count and its noun in agreement: "1 frame", "3 frames", "2 entities".
///
/// `pluralForm` is for nouns that do not just take an "s"; it may also carry the words that
/// agree with the noun ("object has" / "objects have"). Counts are grouped ("1,200 rows") in
/// every report and message; `grouping: false` is for counts that are data rather than report
/// text (dump's to-many object counts).
package func plural(_ count: Int, _ singular: String, _ pluralForm: String? = nil, grouping: Bool = true) -> String {
    "\(grouping ? grouped(count) : String(count)) \(noun(singular, count: count, pluralForm))"
}

/// The noun alone, singular or plural for `count`, for text that puts other words between the
/// count and its noun: "rows with unknown Z_ENT values".
package func noun(_ singular: String, count: Int, _ pluralForm: String? = nil) -> String {
    count == 1 ? singular : (pluralForm ?? singular + "s")
}
