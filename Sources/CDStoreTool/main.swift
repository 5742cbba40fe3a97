import CDCommands

// The executable is only this call: every command lives in the CDCommands library, so tests and
// the console run them in-process. The folder is not named `cdstore`, which would differ from
// `CDStore` only by letter case and break a clone on a case-insensitive file system.
CommandLineEntry.main()
