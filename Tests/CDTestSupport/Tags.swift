import Testing

/// Tags for the tests that take most of a full run's time.
///
/// SwiftPM's `swift test --skip` and `--filter` match test names, not tags, so each tagged suite
/// also carries its tag in its name: `…CorpusWideTests` and `…SlowTests`. The fast run,
/// `swift test --skip 'CorpusWideTests|SlowTests'`, relies on that.
extension Tag {
    /// Runs on every store of the corpus, or on every store of a kind (with a model cache, say).
    @Tag public static var corpusWide: Self
    /// Slow for another reason, such as many random inputs.
    @Tag public static var slow: Self
}
