import CDBase

/// Why a model cannot be read from a file, or cannot be archived: one type for every format
/// cdstore reads (model-format.md §1–§7), so a front end tells a missing file from a malformed
/// one by its case, not by its text. ``message`` is the one line the command line prints.
public enum ModelError: UserFacingError, Sendable, Equatable {
    /// `path` cannot be read or listed (`reason`: "cannot read (no such file)", …).
    case unreadable(path: String, reason: String)
    /// `path` is not a model in any format cdstore reads.
    case notAModel(path: String, reason: String)
    /// A bundle without a version of the kind it holds (`xcdatamodel` in an `.xcdatamodeld`,
    /// `mom` in a `.momd`).
    case noVersion(bundle: String, kind: String)
    /// An `.xcdatamodel` directory with neither a `contents` file nor an Xcode 3 `elements` file.
    case noContents(bundle: String)
    /// An Xcode 3 (`elements`) bundle whose archive could not be read; Xcode re-saves it as XML.
    case legacyUnreadable(bundle: String, reason: String)
    /// The bytes of a model file are malformed: XML, a keyed archive, an `elements` archive,
    /// text that is not UTF-8. `path` is nil where the reader was given bytes, not a file.
    case malformed(path: String?, reason: String)
    /// A ruby-xcdm schema problem at a 1-based line and column of `file`.
    case schema(file: String, line: Int, column: Int, reason: String)
    /// Something in the model that an `NSManagedObjectModel` archive cannot express.
    case cannotArchive(reason: String)

    public var message: String {
        switch self {
        case .unreadable(let path, let reason), .notAModel(let path, let reason): return "\(path): \(reason)"
        case .noVersion(let bundle, let kind): return "\(bundle) holds no .\(kind) version"
        case .noContents(let bundle): return "\(bundle) has no contents file"
        case .legacyUnreadable(let bundle, let reason):
            return "\(bundle) is in the Xcode 3 model format and could not be read (\(reason)); open and re-save it in Xcode"
        case .malformed(let path, let reason): return (path.map { $0 + ": " } ?? "") + reason
        case .schema(let file, let line, let column, let reason): return "\(file):\(line):\(column): \(reason)"
        case .cannotArchive(let reason): return reason
        }
    }

    /// The same error naming `path`, for a reader of bytes whose caller knows the file.
    func inFile(_ path: String) -> ModelError {
        if case .malformed(nil, let reason) = self { return .malformed(path: path, reason: reason) }
        return self
    }
}
