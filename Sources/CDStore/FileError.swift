import CDBase

/// A file-system call that failed on one of the user's files or on a private copy: the private
/// copy a read may start with, and the copies, moves and removals of `reset` and `clean`.
/// `reason` is the system's own words (`strerror`, or Foundation's `localizedDescription`).
public enum FileError: UserFacingError, Sendable, Equatable {
    /// `path` cannot be opened for reading.
    case cannotOpen(path: String, reason: String)
    /// `path` cannot be read to the end.
    case cannotRead(path: String, reason: String)
    /// `path` (a file or a folder) cannot be created.
    case cannotCreate(path: String, reason: String)
    /// `path` cannot be copied; `destination` when the message names it.
    case cannotCopy(path: String, destination: String?, reason: String)
    /// `path` cannot be renamed in place.
    case cannotMove(path: String, reason: String)
    /// `path` cannot be removed.
    case cannotRemove(path: String, reason: String)
    /// A private copy cannot be written (the disk is full, say).
    case cannotWritePrivateCopy(reason: String)

    public var message: String {
        switch self {
        case .cannotOpen(let path, let reason): return "\(path): cannot open (\(reason))"
        case .cannotRead(let path, let reason): return "\(path): cannot read (\(reason))"
        case .cannotCreate(let path, let reason): return "\(path): cannot create (\(reason))"
        case .cannotCopy(let path, let destination, let reason):
            return "\(path): cannot copy\(destination.map { " to \($0)" } ?? "") (\(reason))"
        case .cannotMove(let path, let reason): return "\(path): cannot move (\(reason))"
        case .cannotRemove(let path, let reason): return "\(path): cannot remove (\(reason))"
        case .cannotWritePrivateCopy(let reason): return "cannot write the private copy (\(reason))"
        }
    }
}
