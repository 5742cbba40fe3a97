/// Random edits of a valid text for the parsers' fuzz tests: one to three of deleting a run,
/// inserting a fragment, replacing a Character, cutting the tail, repeating a run, or swapping
/// two neighbours.
public enum TextMutation {
    /// `text` edited; runs deleted are at most `longestDeletion` Characters long, runs repeated
    /// at most `longestRepeat`.
    public static func mutate(
        _ text: String, fragments: [String], longestDeletion: Int, longestRepeat: Int,
        using rng: inout SeededGenerator
    ) -> String {
        var characters = Array(text)
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let index = characters.isEmpty ? 0 : Int.random(in: 0..<characters.count, using: &rng)
            switch Int.random(in: 0...5, using: &rng) {
            case 0 where !characters.isEmpty:
                characters.removeSubrange(index..<min(characters.count, index + Int.random(in: 1...longestDeletion, using: &rng)))
            case 1:
                characters.insert(contentsOf: fragments.randomElement(using: &rng) ?? "", at: index)
            case 2 where !characters.isEmpty:
                characters[index] = fragments.randomElement(using: &rng)?.first ?? " "
            case 3:
                characters.removeSubrange(index...)
            case 4 where !characters.isEmpty:
                let end = min(characters.count, index + Int.random(in: 1...longestRepeat, using: &rng))
                characters.insert(contentsOf: characters[index..<end], at: index)
            default:
                if index + 1 < characters.count { characters.swapAt(index, index + 1) }
            }
        }
        return String(characters)
    }
}
