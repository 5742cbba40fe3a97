import CDBase
import CDFetch
import CDPredicate
import CDStore
import Hummingbird

/// Why a request gets no page, each with its HTTP status: a malformed path or parameter (400),
/// a store, entity or object the server does not have (404), a method other than GET or HEAD
/// (405), a store whose model cannot be read (409: start `serve` with `--model`), a query over
/// its time limit (504) or a server too busy to start one (503). Errors from the library are mapped by their type and case in
/// ``init(_:)``, never by their text.
package enum ServeError: UserFacingError, Equatable, Sendable {
    /// The path names no page; `path` is the request's (escaped when shown).
    case noSuchPage(path: String)
    /// No served store has this index or name.
    case unknownStore(String)
    /// The store has no such entity (``StoreError/unknownEntity(name:known:)``).
    case unknownEntity(name: String, known: [String])
    /// The entity has no object with this `Z_PK`.
    case unknownObject(entity: String, primaryKey: Int64)
    /// The object has no to-many relationship of this name.
    case unknownRelationship(entity: String, name: String)
    /// A path segment or query parameter that cannot be read; `message` says which and why.
    case badRequest(String)
    /// A `where` predicate or query that does not parse or translate; `message` is the
    /// parser's, and `caret` its two-line diagram of where, when it gave one.
    case badQuery(String, caret: String?)
    /// A parameter longer than the page accepts (a pasted error dump); `message` names the bound.
    case tooLong(String)
    /// Only GET and HEAD are served.
    case methodNotAllowed(method: String)
    /// A query ran past `--query-timeout`; `remedy` is what the page advises instead.
    case queryTimeout(seconds: Double, remedy: TimeoutRemedy)
    /// `waiting` requests already wait for one of the `workers` threads (``WorkerPool``).
    case busy(waiting: Int, workers: Int)
    /// The request waited `seconds` (`--query-timeout`) for a worker thread and got none.
    case waitedTooLong(seconds: Double)
    /// The request's client went away before its answer was ready.
    case cancelled
    /// The store has no usable model (no model cache, a corrupt one, no version of `--model`
    /// that fits): pages that need entities cannot be built until `serve` is given `--model`.
    /// `message` is the library's, which names the remedy.
    case noModel(String)
    /// Any other error from a store (a corrupt page, an unreadable model cache): the page cannot
    /// be built, and `message` is the library's one line.
    case storeFailure(String)

    package var message: String {
        switch self {
        case .noSuchPage(let path):
            return
                "no page at \(path); pages: /, /stores/{store}, /stores/{store}/entities/{Entity}, /stores/{store}/entities/{Entity}/{Z_PK}, /stores/{store}/model, /stores/{store}/validate, /stores/{store}/compat, /stores/{store}/history, /explain, /diff/{a}/{b}"
        case .unknownStore(let name): return "no served store is named or numbered \"\(name)\""
        case .unknownEntity(let name, let known): return StoreError.unknownEntity(name: name, known: known).message
        case .unknownObject(let entity, let primaryKey): return FetchSQLError.noObject(entity: entity, primaryKey: primaryKey).message
        case .unknownRelationship(let entity, let name): return "\(entity) has no to-many relationship \"\(name)\""
        case .badRequest(let message), .badQuery(let message, _), .storeFailure(let message), .tooLong(let message), .noModel(let message):
            return message
        case .methodNotAllowed(let method): return "\(method) is not allowed: cdstore serve is read-only and answers GET and HEAD only"
        case .busy(let waiting, let workers):
            return "the server is busy: \(waiting) requests wait for its \(workers) worker\(workers == 1 ? "" : "s") (--workers); try again shortly"
        case .waitedTooLong(let seconds):
            return
                "the request waited \(QueryDeadline.format(seconds)) s (--query-timeout) for a worker while slower requests held them; try again shortly, or start serve with more --workers"
        case .cancelled: return "the request was cancelled before its answer was ready"
        case .queryTimeout(let seconds, let remedy):
            let stopped = "the query was stopped after \(QueryDeadline.format(seconds)) s (--query-timeout)"
            switch remedy {
            case .narrowFilter: return stopped + "; narrow the filter or sort by an indexed attribute"
            case .useCommand(let command):
                return stopped + "; run `cdstore \(command)` on the store, which has no time limit, or start serve with a longer --query-timeout"
            }
        }
    }

    package var status: HTTPResponse.Status {
        switch self {
        case .noSuchPage, .unknownStore, .unknownEntity, .unknownObject, .unknownRelationship: return .notFound
        case .badRequest, .badQuery: return .badRequest
        case .methodNotAllowed: return .methodNotAllowed
        case .noModel: return .conflict
        case .tooLong: return .uriTooLong
        case .queryTimeout: return .gatewayTimeout
        case .busy, .waitedTooLong, .cancelled: return .serviceUnavailable
        case .storeFailure: return .internalServerError
        }
    }

    /// Maps a library error thrown while answering a request. A predicate or fetch that cannot
    /// be translated is the request's fault (400); a store that cannot be read is not.
    package init(_ error: any Error) {
        switch error {
        case let serve as ServeError: self = serve
        case is CancellationError: self = .cancelled
        case StoreError.unknownEntity(let name, let known): self = .unknownEntity(name: name, known: known)
        case let store as StoreError where Self.isMissingModel(store): self = .noModel(store.message)
        case let store as StoreError where Self.isRequestFault(store): self = .badQuery(store.message, caret: nil)
        case let predicate as PredicateError: self = .badQuery(predicate.description, caret: predicate.caretDiagram)
        case let translation as FetchSQLError: self = .badQuery(translation.message, caret: nil)
        case let fetch as FetchError: self = .badQuery(fetch.message, caret: nil)
        case let userFacing as UserFacingError: self = .storeFailure(userFacing.message)
        default: self = .storeFailure(String(describing: error))
        }
    }

    /// The store errors that say the store's model cannot be read.
    private static func isMissingModel(_ error: StoreError) -> Bool {
        switch error {
        case .noModelCache, .corruptModelCache, .unknownModelVersion, .noCurrentModelVersion: return true
        default: return false
        }
    }

    /// The store errors a request's key paths or sort keys cause.
    private static func isRequestFault(_ error: StoreError) -> Bool {
        switch error {
        case .notToMany: return true
        default: return false
        }
    }
}

/// What a page whose queries ran past `--query-timeout` advises: an entity page's filter can be
/// narrowed; a whole-store report (validate, compat, history, diff, explain's check) cannot, and
/// its command has no time limit.
package enum TimeoutRemedy: Equatable, Sendable {
    case narrowFilter
    /// The `cdstore` command (with its options) that gives the same report without a limit.
    case useCommand(String)
}
