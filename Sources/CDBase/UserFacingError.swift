/// An error meant for the person running cdstore: one line of message, the exit status the
/// manual documents, and optionally lines that show where the problem is and a hint on what to
/// do next.
///
/// Every module's error types conform, so the command line catches this one protocol and prints
/// `cdstore: error: <description>`, the details and the hint, instead of converting each type on
/// its own.
public protocol UserFacingError: Error, CustomStringConvertible {
    /// The problem, in one line.
    var message: String { get }
    /// The process exit status: 2 for bad input or a store that cannot be read (the default).
    var exitStatus: Int32 { get }
    /// Lines printed under the message, indented: a predicate error's text with a caret under
    /// the problem. None by default.
    var details: [String] { get }
    /// What to try next, when there is something useful to say.
    var hint: String? { get }
}

extension UserFacingError {
    /// 2, the status for bad input or an unreadable store, unless a type says otherwise.
    public var exitStatus: Int32 { 2 }
    /// No lines under the message unless a type has something to point at.
    public var details: [String] { [] }
    /// No hint unless a type has advice to give.
    public var hint: String? { nil }
    /// The line the command line prints: the message, unless a type adds to it (a predicate
    /// error says at which character).
    public var description: String { message }
}

/// One line of a ``UserFacingError`` as the front ends print it, with the part it is, so a front
/// end that colours can style each part.
public struct UserFacingErrorLine: Sendable, Equatable {
    /// Which part of the error a line is.
    public enum Part: Sendable, Equatable {
        /// The first line: the front end's prefix and the message.
        case message
        /// A line of ``UserFacingError/details``, indented by two spaces.
        case detail
        /// `hint: ` and the ``UserFacingError/hint``.
        case hint
    }

    public let part: Part
    public let text: String
}

extension UserFacingError {
    /// The error as text, rendered in this one place for every front end: `prefix` and the
    /// headline, the details indented by two spaces, then the hint. The command line's headline
    /// is ``description`` (a predicate error says at which character); the console's is the
    /// bare ``message``, as its prefix already says at which line and the details show where.
    public func renderedLines(prefix: String, headline: UserFacingErrorHeadline = .description) -> [UserFacingErrorLine] {
        [UserFacingErrorLine(part: .message, text: prefix + (headline == .description ? description : message))]
            + details.map { UserFacingErrorLine(part: .detail, text: "  " + $0) }
            + (hint.map { [UserFacingErrorLine(part: .hint, text: "hint: " + $0)] } ?? [])
    }
}

/// Which text starts a rendered error (``UserFacingError/renderedLines(prefix:headline:)``).
public enum UserFacingErrorHeadline: Sendable, Equatable {
    /// ``UserFacingError/description``: the message and anything a type adds to it.
    case description
    /// ``UserFacingError/message`` alone.
    case message
}
