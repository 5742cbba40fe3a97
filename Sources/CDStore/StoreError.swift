import CDBase
import Foundation

/// A problem with the user's store, described in one line for the terminal.
///
/// Every failure while opening or reading a store ends up as one of these, so the command line
/// can print it and exit with status 2 instead of showing a backtrace.
public struct StoreError: UserFacingError, Sendable, Equatable {
    /// The one-line reason, usually starting with the store's path.
    public let description: String
    /// The same line, as ``UserFacingError`` asks for it.
    public var message: String { description }
    package init(_ description: String) { self.description = description }
}
