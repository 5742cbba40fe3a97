import Hummingbird

/// Runs a request's work cancelled when its client goes away, through Hummingbird's
/// `consumeWithCancellationOnInboundClose`, which reads the connection past the request.
///
/// The work first reads the request's body to its end. Hummingbird 2.28 finishes the stream it
/// hands the work only when its reader sees the request's end, and traps ("Deinited
/// NIOAsyncSequenceProducer.Source without calling source.finish()") when work that returned
/// before that releases the stream: a 304 or an error page could answer first, and did, in CI.
/// Reading the body first orders the two. A GET has no body; one that sends more than
/// ``bodyLimit`` bytes is refused rather than read.
enum ClientWatch {
    /// The most a request may send as its body (a GET's is empty).
    static let bodyLimit = 64 * 1024

    static func run<Value: Sendable>(_ body: RequestBody, _ work: () async throws -> Value) async throws -> Value {
        try await body.consumeWithCancellationOnInboundClose { stream in
            var received = 0
            for try await part in stream {
                received += part.readableBytes
                if received > bodyLimit { throw ServeError.badRequest("a request to cdstore serve has no body; this one sent over \(bodyLimit) bytes") }
            }
            return try await work()
        }
    }
}
