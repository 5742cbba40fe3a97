import CDFetch
import Testing

@Test func moduleLinks() {
    #expect(String(describing: CDFetch.self) == "CDFetch")
}
