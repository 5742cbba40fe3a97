import Foundation

/// Gives each distinct statement text of a log one `String` and one number, on the reading
/// thread: a log repeats a few hundred statements millions of times, so a statement seen before
/// costs a hash of its bytes and one comparison instead of a new string, and the analyzer finds
/// its shape by number (an array) instead of hashing the text again.
///
/// Memory is bounded: at most 80,000 texts of 32 MiB in all are kept (by default); a statement
/// that does not fit is made into a string of its own with no number, and the analyzer shapes it
/// from its text as before.
///
/// One thread uses an interner at a time (the reading one), so its tables skip the run-time
/// exclusivity checks (`@exclusivity(unchecked)`), which are paid on every line otherwise.
package final class StatementInterner {
    /// Distinct statements numbered at most (by default the analyzer's limit on remembered
    /// statements).
    private let maximumStatements: Int
    /// Bytes of statement text kept at most.
    private let maximumBytes: Int

    private struct Entry {
        var hash: UInt64
        var offset: Int
        var count: Int
        var text: String
    }

    @exclusivity(unchecked) private var entries: [Entry] = []
    /// The logged bytes of every entry, one after another (the text may differ: invalid UTF-8
    /// is repaired in it, and the bytes are what the next line is compared with).
    @exclusivity(unchecked) private var bytes: [UInt8] = []
    /// Open addressing: entry index + 1, or 0 for an empty slot; a power of two long.
    @exclusivity(unchecked) private var slots: [Int32] = Array(repeating: 0, count: 1024)
    /// Chosen per run, so no log can be written to make its statements collide.
    private let seed = UInt64.random(in: 0...UInt64.max)

    package init(maximumStatements: Int = 4 * TraceAnalyzer.maximumShapes, maximumBytes: Int = 32 << 20) {
        self.maximumStatements = maximumStatements
        self.maximumBytes = maximumBytes
    }

    /// What ``number(_:)`` found.
    package enum Numbered: Equatable {
        /// A statement numbered before.
        case known(Int)
        /// A statement seen for the first time, numbered now.
        case new(String, Int)
        /// A new statement the full interner could not number.
        case unnumbered(String)
    }

    /// The statement's text and number, or its text and nil when the interner is full.
    package func intern(_ statement: UnsafeBufferPointer<UInt8>) -> (text: String, number: Int?) {
        switch number(statement) {
        case .known(let number): return (entries[number].text, number)
        case .new(let text, let number): return (text, number)
        case .unnumbered(let text): return (text, nil)
        }
    }

    /// The statement's number, with its text only when it is new: a statement seen before costs
    /// no string (not even a reference count).
    package func number(_ statement: UnsafeBufferPointer<UInt8>) -> Numbered {
        let hash = Self.hash(statement, seed: seed)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let stored = Int(slots[slot])
            if stored == 0 { break }
            if entries[stored - 1].hash == hash, matches(stored - 1, statement) { return .known(stored - 1) }
            slot = (slot + 1) & mask
        }
        let text = String(decoding: statement, as: UTF8.self)
        guard entries.count < maximumStatements, bytes.count + statement.count <= maximumBytes else { return .unnumbered(text) }
        let number = entries.count
        entries.append(Entry(hash: hash, offset: bytes.count, count: statement.count, text: text))
        bytes.append(contentsOf: statement)
        slots[slot] = Int32(number + 1)
        if entries.count * 2 > slots.count { grow() }
        return .new(text, number)
    }

    /// Whether entry `index` holds exactly these bytes.
    private func matches(_ index: Int, _ statement: UnsafeBufferPointer<UInt8>) -> Bool {
        let offset = entries[index].offset
        guard entries[index].count == statement.count else { return false }
        guard let base = statement.baseAddress else { return true }
        return bytes.withUnsafeBufferPointer { stored in
            guard let start = stored.baseAddress else { return false }
            return memcmp(start + offset, base, statement.count) == 0
        }
    }

    private func grow() {
        var larger = [Int32](repeating: 0, count: slots.count * 2)
        let mask = larger.count - 1
        for (index, entry) in entries.enumerated() {
            var slot = Int(truncatingIfNeeded: entry.hash) & mask
            while larger[slot] != 0 { slot = (slot + 1) & mask }
            larger[slot] = Int32(index + 1)
        }
        slots = larger
    }

    /// A fast hash of the bytes, eight at a time (a multiply-and-fold mix: a collision costs only
    /// a comparison, and the seed keeps a log from choosing them).
    static func hash(_ statement: UnsafeBufferPointer<UInt8>, seed: UInt64) -> UInt64 {
        var hash: UInt64 = (0x9E37_79B9_7F4A_7C15 ^ seed) &+ UInt64(statement.count)
        guard let base = statement.baseAddress else { return hash }
        let raw = UnsafeRawPointer(base)
        var offset = 0
        while offset + 8 <= statement.count {
            let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            hash = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 32
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < statement.count {
            tail |= UInt64(base[offset]) << shift
            shift += 8
            offset += 1
        }
        hash = (hash ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        return hash ^ (hash >> 29)
    }
}
