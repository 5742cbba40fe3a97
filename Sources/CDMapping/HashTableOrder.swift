/// The order in which a 64-bit Core Foundation dictionary of strings (Mac OS X 10.6) hands back
/// its keys: the order in which frameworks before 419 write the columns of one type
/// (``ColumnOrderStyle/hashTable``).
///
/// Such a dictionary is an open-addressing table: a key goes to bucket `hash % buckets`, or to
/// the next free bucket after it, and enumeration walks the buckets from 0. A dictionary made
/// from `n` keys at once has the smallest bucket count of ``bucketCounts`` whose capacity holds
/// `n`; keys are inserted in the order given, which decides only which of two colliding keys
/// comes first.
///
/// Evidence: the key order of each of the 40 dictionaries (2 to 9 keys) in the three Xcode 3
/// `elements` model files of the corpus saved by a 64-bit Xcode (DesktopRecipes and both
/// recipes-migration versions) is an order this table gives for some insertion order; the
/// iPhone Recipes model, saved by a 32-bit Xcode, fits the same table with the hash truncated
/// to 32 bits. Only the bucket counts 3, 7 and 13 are checked by that; the larger ones are Core
/// Foundation's prime series as remembered (**uncertain**).
enum HashTableOrder {
    /// Bucket counts, and the most keys each holds.
    private static let bucketCounts: [(buckets: Int, capacity: Int)] = [
        (3, 3), (7, 6), (13, 11), (23, 19), (41, 32), (71, 52), (127, 85), (191, 118), (251, 155),
        (383, 237), (631, 390), (1087, 672), (1723, 1065), (2803, 1732), (4523, 2795),
    ]

    /// `keys` in the dictionary's enumeration order, inserted in the given order; `nil` when
    /// there are more keys than the largest known table holds.
    static func enumerationOrder(of keys: [String]) -> [String]? {
        guard let buckets = bucketCount(forKeys: keys.count) else { return nil }
        var slots = [String?](repeating: nil, count: buckets)
        for key in keys {
            var slot = Int(stringHash(key) % UInt64(buckets))
            while slots[slot] != nil { slot = (slot + 1) % buckets }
            slots[slot] = key
        }
        return slots.compactMap { $0 }
    }

    /// The buckets of a table made for `count` keys; `nil` beyond the largest known table.
    static func bucketCount(forKeys count: Int) -> Int? {
        bucketCounts.first { $0.capacity >= count }?.buckets
    }

    /// Core Foundation's string hash on a 64-bit Mac, over UTF-16 code units: the length, then
    /// each unit folded in by powers of 257 (four at a time while four remain); strings longer
    /// than 96 units contribute only their first, middle and last 32 units. Non-ASCII names may
    /// be hashed from another encoding by the framework (**uncertain**).
    static func stringHash(_ string: String) -> UInt64 {
        let units = Array(string.utf16).map(UInt64.init)
        let length = units.count
        var result = UInt64(length)
        func fold(_ range: Range<Int>) {
            var index = range.lowerBound
            while index + 4 <= range.upperBound {
                result =
                    result &* 67_503_105 &+ units[index] &* 16_974_593 &+ units[index + 1] &* 66_049
                    &+ units[index + 2] &* 257 &+ units[index + 3]
                index += 4
            }
            while index < range.upperBound {
                result = result &* 257 &+ units[index]
                index += 1
            }
        }
        if length <= 96 {
            fold(0..<length)
        } else {
            let middle = length / 2 - 16
            fold(0..<32)
            fold(middle..<(middle + 32))
            fold((length - 32)..<length)
        }
        return result &+ (result << UInt64(length & 31))
    }
}
