/// An error meant for the person running cdstore: one line of message, the exit status the
/// manual documents, and optionally a hint on what to do next.
///
/// Every module's error types conform, so the command line catches this one protocol and prints
/// `cdstore: error: <message>` (and the hint) instead of converting each type on its own.
public protocol UserFacingError: Error, CustomStringConvertible {
    /// The problem, in one line.
    var message: String { get }
    /// The process exit status: 2 for bad input or a store that cannot be read (the default).
    var exitStatus: Int32 { get }
    /// What to try next, when there is something useful to say.
    var hint: String? { get }
}

extension UserFacingError {
    public var exitStatus: Int32 { 2 }
    public var hint: String? { nil }
    public var description: String { message }
}
