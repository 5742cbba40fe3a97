import ArgumentParser

extension ArgumentHelp {
    /// The help of the STORE argument of every command that reads a store: one text, so
    /// `--help`, the README and the man page say the same everywhere.
    static let storeFile: ArgumentHelp = "The store file (.sqlite, .storedata, .db, any extension)."
}
