import CDConsole
import Testing

@Suite struct CompletionTests {
}
