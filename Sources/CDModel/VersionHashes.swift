import CDBase
import Foundation

/// Core Data's entity version hashes, model checksum and digest, computed from a model.
///
/// The byte layouts are those of docs/format/model-format.md §5 (confirmed against 3,108 real
/// hashes): plain concatenations of UTF-8 strings and little-endian integers fed to SHA-256,
/// with the digest over names and hashes fed to SHA-512.
public enum VersionHashes {
    /// The version hash of every entity of `model`, by entity name.
    public static func entityHashes(of model: ManagedObjectModel) -> [String: Data] {
        var cache: [String: Data] = [:]
        for entity in model.entities {
            _ = hash(of: entity.name, in: model, cache: &cache, visiting: [])
        }
        return cache
    }

    /// `versionChecksum` / `NSStoreModelVersionChecksumKey`: base64 of SHA-256 over the entity
    /// hashes in byte order of the names (§5.7).
    public static func checksum(of hashes: [String: Data]) -> String {
        var sha = SHA256()
        for name in sortedNames(hashes) { sha.update(data: hashes[name]!) }
        return Data(sha.finalize()).base64EncodedString()
    }

    /// `NSStoreModelVersionHashesDigest`: base64 of SHA-512 over each name followed by its hash.
    public static func digest(of hashes: [String: Data]) -> String {
        var sha = SHA512()
        for name in sortedNames(hashes) {
            sha.update(data: Data(name.utf8))
            sha.update(data: hashes[name]!)
        }
        return Data(sha.finalize()).base64EncodedString()
    }

    /// Names in the byte order of their UTF-8 encoding, not case-insensitive order (§5.10 point 6).
    package static func sortedNames(_ hashes: [String: Data]) -> [String] {
        hashes.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    private static func hash(
        of name: String, in model: ManagedObjectModel,
        cache: inout [String: Data], visiting: Set<String>
    ) -> Data? {
        if let known = cache[name] { return known }
        guard let entity = model.entity(named: name), !visiting.contains(name) else { return nil }
        var input = Data(entity.name.utf8)
        input.append(entity.isAbstract ? 1 : 0)
        if let parent = entity.parentName,
            let parentHash = hash(of: parent, in: model, cache: &cache, visiting: visiting.union([name]))
        {
            input.append(parentHash)
        }
        for (property, declaringEntity) in hashedProperties(of: name, in: model) {
            input.append(propertyHash(property, declaredBy: declaringEntity))
        }
        if let modifier = entity.versionHashModifier { input.append(contentsOf: modifier.utf8) }
        let constraints = entity.uniquenessConstraints
            .map { $0.joined(separator: ".") }
            .filter { !$0.isEmpty }
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for constraint in constraints { input.append(contentsOf: constraint.utf8) }
        let result = sha256(input)
        cache[name] = result
        return result
    }

    /// P(E): own and inherited properties (own wins), without transient and fetched ones,
    /// sorted by name bytes. Each comes with the entity that declares it.
    private static func hashedProperties(of name: String, in model: ManagedObjectModel)
        -> [(PropertyDescription, String)]
    {
        var chosen: [String: (PropertyDescription, String)] = [:]
        for entity in model.lineage(of: name) {
            for property in entity.properties where chosen[property.name] == nil {
                chosen[property.name] = (property, entity.name)
            }
        }
        return chosen.values
            .filter { property, _ in
                switch property {
                case .fetched: return false
                case .attribute(let a): return a.isDerived || !a.common.isTransient
                case .relationship(let r): return !r.common.isTransient
                }
            }
            .sorted { $0.0.name.utf8.lexicographicallyPrecedes($1.0.name.utf8) }
    }

    /// The hash of one property (§5.3–5.6). Fetched properties have none.
    public static func propertyHash(_ property: PropertyDescription, declaredBy entityName: String) -> Data {
        switch property {
        case .attribute(let attribute):
            if let derivation = attribute.derivationExpression {
                var input = Data(derivation.utf8)
                if let filter = attribute.filteringPredicate { input.append(contentsOf: filter.utf8) }
                return sha256(input)
            }
            var input = baseHash(attribute.common)
            appendLE(&input, UInt32(truncatingIfNeeded: attribute.type.rawValue), bytes: 4)
            if attribute.allowsExternalBinaryDataStorage { input.append(1) }
            if attribute.preservesValueInHistoryOnDeletion { input.append(1) }
            return sha256(input)
        case .relationship(let relationship):
            var input = baseHash(relationship.common)
            input.append(contentsOf: relationship.destinationEntity.utf8)
            if let inverse = relationship.inverseName, !isOwnInverse(relationship, declaredBy: entityName) {
                input.append(contentsOf: inverse.utf8)
            }
            appendLE(&input, UInt32(truncatingIfNeeded: relationship.maxCount), bytes: 4)
            appendLE(&input, UInt32(truncatingIfNeeded: relationship.minCount), bytes: 4)
            if relationship.isOrdered { appendLE(&input, 1, bytes: 2) }
            return sha256(input)
        case .fetched:
            return Data()
        }
    }

    /// A relationship that names itself as its inverse contributes no inverse (§5.6).
    private static func isOwnInverse(_ relationship: RelationshipDescription, declaredBy entityName: String) -> Bool {
        relationship.inverseName == relationship.name
            && (relationship.inverseEntity ?? relationship.destinationEntity) == entityName
    }

    private static func baseHash(_ common: PropertyCommon) -> Data {
        var input = Data(common.name.utf8)
        let flags = (common.isOptional ? 1 : 0) + (common.isTransient ? 2 : 0) + (common.isReadOnly ? 4 : 0)
        appendLE(&input, UInt32(flags), bytes: 2)
        if let modifier = common.versionHashModifier { input.append(contentsOf: modifier.utf8) }
        return sha256(input)
    }

    private static func appendLE(_ data: inout Data, _ value: UInt32, bytes: Int) {
        for i in 0..<bytes { data.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(i)))) }
    }

    private static func sha256(_ data: Data) -> Data { Data(SHA256.hash(data: data)) }
}

extension Data {
    /// Lowercase hex, as cdstore's JSON prints hashes.
    package var hexString: String { map { String(format: "%02x", $0) }.joined() }

    /// Core Data's log style for hashes: `<5431c046 d30e7f32 …>`, groups of four bytes.
    package var coreDataDescription: String {
        let hex = hexString
        var groups: [Substring] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let end = hex.index(index, offsetBy: 8, limitedBy: hex.endIndex) ?? hex.endIndex
            groups.append(hex[index..<end])
            index = end
        }
        return "<" + groups.joined(separator: " ") + ">"
    }

    /// Parses lowercase or uppercase hex, as the JSON reports and metadata hold hashes; `nil`
    /// on odd length or bad digits.
    package init?(hexDigits hex: String) {
        guard hex.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(bytes)
    }
}
