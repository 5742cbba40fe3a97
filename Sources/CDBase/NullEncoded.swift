/// An optional that JSON-encodes as `null` instead of being left out.
///
/// The `--json` reports are contracts: a script should find every key on every run, with
/// `null` meaning "not known" or "not applicable", rather than keys that come and go.
@propertyWrapper
public struct NullEncoded<Value: Codable & Sendable>: Codable, Sendable {
    /// The value; nil encodes as JSON `null`.
    public var wrappedValue: Value?

    /// Wraps `wrappedValue`, as `@NullEncoded var x = …` does.
    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    /// Reads `null` as nil, anything else as a `Value`.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    /// Writes the value, or an explicit `null` for nil.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension KeyedDecodingContainer {
    /// A missing key decodes as `nil`, like a plain optional.
    public func decode<Value>(_ type: NullEncoded<Value>.Type, forKey key: Key) throws -> NullEncoded<Value> {
        try decodeIfPresent(type, forKey: key) ?? NullEncoded(wrappedValue: nil)
    }
}

extension NullEncoded: Equatable where Value: Equatable {}
