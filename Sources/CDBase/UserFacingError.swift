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
