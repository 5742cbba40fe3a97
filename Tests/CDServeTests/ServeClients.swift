import CDServe
import CDTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// A client of a live server (``LiveServer``) over a real socket, on SwiftNIO's HTTP/1 codec:
/// one connection per request (`Connection: close`), at most ``ConnectionSlots/limit`` at once
/// (thousands of connects at once overflow the server's listen backlog), the request's URI sent
/// exactly as given, the answer's body collected whole. It waits as long as the server takes: in
/// a full parallel run the other suites can keep the concurrency pool, which the in-process
/// server needs to answer, busy for minutes. Why not HummingbirdTesting: it builds AsyncHTTPClient, NIOSSL and a
/// second BoringSSL, most of the test build's time; and its in-memory mode hands the responder a
/// request body that ``ServeResponder``'s watch for a client that leaves cannot use.
struct ServeClient: Sendable {
    let port: Int
    private let slots = ConnectionSlots()

    init(port: Int) {
        self.port = port
    }

    /// An answer as received.
    struct Response: Sendable {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: ByteBuffer
    }

    struct ConnectionClosed: Error, CustomStringConvertible {
        var uri: String
        var description: String { "the server closed the connection before answering \(uri)" }
    }

    /// Sends `uri` with `method`, `headers` and `body`, and gives the answer to `read`.
    func execute<Value>(
        uri: String, method: HTTPRequest.Method = .get, headers: HTTPFields = [:], body: ByteBuffer? = nil,
        _ read: (Response) async throws -> Value
    ) async throws -> Value {
        await slots.take()
        let response: Response
        do {
            response = try await send(uri: uri, method: method, headers: headers, body: body)
        } catch {
            await slots.give()
            throw error
        }
        await slots.give()
        return try await read(response)
    }

    private func send(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> Response {
        let group = MultiThreadedEventLoopGroup.singleton
        let answer = group.next().makePromise(of: Response.self)
        let collector = AnswerCollector(uri: uri, answer: answer)
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(.seconds(600))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(collector)
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        var head = HTTPRequestHead(version: .http1_1, method: NIOHTTP1.HTTPMethod(rawValue: method.rawValue), uri: uri)
        head.headers.add(name: "Host", value: "127.0.0.1:\(port)")
        for field in headers { head.headers.add(name: field.name.rawName, value: field.value) }
        if let body { head.headers.add(name: "Content-Length", value: String(body.readableBytes)) }
        head.headers.add(name: "Connection", value: "close")
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil) }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        let response: Response
        do {
            response = try await answer.futureResult.get()
        } catch {
            try? await channel.close().get()
            throw error
        }
        try? await channel.close().get()
        return response
    }

    /// Lets at most `limit` requests hold a connection; the rest wait in order.
    private actor ConnectionSlots {
        static let limit = 32
        private var inUse = 0
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func take() async {
            guard inUse >= Self.limit else {
                inUse += 1
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        /// Hands the slot to the first waiting request, or frees it.
        func give() {
            if waiting.isEmpty {
                inUse -= 1
            } else {
                waiting.removeFirst().resume()
            }
        }
    }

    /// Reads one answer off the connection; on the connection's event loop only.
    private final class AnswerCollector: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPClientResponsePart

        let uri: String
        let answer: EventLoopPromise<Response>
        private var head: HTTPResponseHead?
        private var body = ByteBuffer()
        private var done = false

        init(uri: String, answer: EventLoopPromise<Response>) {
            self.uri = uri
            self.answer = answer
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let received): head = received
            case .body(var bytes): body.writeBuffer(&bytes)
            case .end:
                guard let head, !done else { return }
                done = true
                var fields: HTTPFields = [:]
                for (name, value) in head.headers {
                    if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
                }
                answer.succeed(Response(status: HTTPResponse.Status(code: Int(head.status.code)), headers: fields, body: body))
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            finish(with: ConnectionClosed(uri: uri))
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            finish(with: error)
            context.close(promise: nil)
        }

        private func finish(with error: any Error) {
            guard !done else { return }
            done = true
            answer.fail(error)
        }
    }
}

/// `serve`'s real HTTP server, in process, on a free loopback port: what every serve test but the
/// browser tests (which run the built `cdstore serve`) talks to, through ``ServeClient`` or curl
/// (event streams, a client that hangs up).
enum LiveServer {
    struct NeverListened: Error, CustomStringConvertible {
        var description: String { "the server stopped before it listened" }
    }

    /// Runs `body` with the port of a server of `catalog`, then shuts the server down gracefully
    /// (on an error too) and waits for it to end.
    static func with<Value: Sendable>(_ catalog: StoreCatalog, _ body: @Sendable (_ port: Int) async throws -> Value) async throws -> Value {
        let (ports, portSource) = AsyncStream.makeStream(of: Int.self)
        let app = ServeServer.application(catalog: catalog) { port in
            portSource.yield(port)
            portSource.finish()
        }
        var logger = Logger(label: "cdstore-serve-tests")
        logger.logLevel = .warning
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                try await group.run()
                portSource.finish()
            }
            do {
                guard let port = await ports.first(where: { _ in true }) else { throw NeverListened() }
                let value = try await body(port)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return value
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
    }
}
