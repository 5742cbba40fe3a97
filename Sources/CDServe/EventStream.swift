import CDRendering
import Hummingbird
import ServiceLifecycle

/// `/stores/{store}/events`: the store's changes as Server-Sent Events (`text/event-stream`),
/// for as long as the client stays connected.
///
/// The stream starts with a `: watching` comment once the store's ``LiveFeed`` has its first
/// snapshot; from then on every poll that finds changes sends one `change` event per entity
/// (``LiveChange``, schemas/serve-event.schema.json), and an idle stream gets a `: heartbeat`
/// comment every ``LiveSettings/heartbeatInterval``: from the watcher after its polls, and from
/// the stream itself whenever it has sent nothing for that long, so that a watcher busy with a
/// large store (its first snapshot reads the version of every row) does not leave
/// its clients without a sign of life. A store that disappears or cannot be read
/// any more ends the stream with an `error` event whose data is the error JSON of every page
/// (schemas/serve-error.schema.json); so does a client too slow to read its events.
///
/// The stream ends when the client disconnects (Hummingbird cancels the writer when the
/// connection's inbound side closes) and on the server's graceful shutdown (Ctrl-C, SIGTERM),
/// which would otherwise wait for it forever (docs/format/web-ui-and-logs.md §2). The page's script
/// connects to the server itself, which the Content-Security-Policy's `default-src 'self'` allows
/// (it stands for the `connect-src` the policy does not name).
enum EventStream {
    static func respond(_ request: PageRequest, body: RequestBody) throws -> Response {
        guard case .events(let name) = request.route else { throw ServeError.noSuchPage(path: "") }
        try request.parameters.check(known: [])
        let feed = try request.catalog.feed(named: name)
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream; charset=utf-8"],
            body: ResponseBody { writer in
                // Subscribed before anything else: the browser counts the stream open once the
                // answer's head arrives, and a change found before the subscription is not sent.
                let (client, messages) = feed.subscribe()
                defer { feed.unsubscribe(client) }
                do {
                    try await ClientWatch.run(body) { try await send(messages, of: feed, to: &writer) }
                } catch is CancellationError {
                    // The client left; the connection is closing.
                }
                try? await writer.finish(nil)
            })
    }

    private static func send(_ messages: AsyncStream<LiveMessage>, of feed: LiveFeed, to writer: inout any ResponseBodyWriter) async throws {
        // The feed's messages and a clock's ticks (nil) in one stream; a tick sends a heartbeat
        // when nothing was sent for an interval. The tasks only wait, never block a thread.
        let interval = Duration.milliseconds(Int64(feed.settings.heartbeatInterval * 1000))
        let tick = min(interval / 4, .milliseconds(500))
        let (merged, continuation) = AsyncStream.makeStream(of: LiveMessage?.self)
        let forwarding = Task {
            for await message in messages { continuation.yield(message) }
            continuation.finish()
        }
        let ticking = Task {
            while (try? await Task.sleep(for: tick)) != nil { continuation.yield(nil) }
        }
        defer {
            forwarding.cancel()
            ticking.cancel()
            continuation.finish()
        }
        let clock = ContinuousClock()
        var lastSent = clock.now
        for await next in merged.cancelOnGracefulShutdown() {
            let text: String
            switch next {
            case nil:
                guard clock.now - lastSent >= interval else { continue }
                text = ": heartbeat\n\n"
            case .watching: text = ": watching \(feed.store.name)\n\n"
            case .heartbeat: text = ": heartbeat\n\n"
            case .change(let change): text = "event: change\ndata: \(change.json)\n\n"
            case .failure(let error):
                try await writer.write(ServeResponder.bytes(event(error)))
                return
            }
            try await writer.write(ServeResponder.bytes(text))
            lastSent = clock.now
        }
        if !Task.isCancelled && !Task.isShuttingDownGracefully {
            let behind = ServeError.storeFailure("this client fell \(LiveFeed.maximumWaiting) events behind and was dropped; reload the page")
            try await writer.write(ServeResponder.bytes(event(behind)))
        }
    }

    private static func event(_ error: ServeError) -> String {
        var data = JSONWriter(htmlSafe: true)
        data.beginObject()
        data.key("error")
        ServeResponder.writeError(error, to: &data)
        data.endObject()
        return "event: error\ndata: \(data.text)\n\n"
    }
}
