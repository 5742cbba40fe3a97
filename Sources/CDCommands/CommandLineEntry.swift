import ArgumentParser
import CDArchive
import CDFetch
import CDModel
import CDStore
import Foundation

/// The whole command line: parses `CommandLine.arguments`, runs the command and exits with its
/// status. The `cdstore` executable is only a call to this.
public enum CommandLineEntry {
    public static func main() -> Never {
        PrivateCopyRegistry.installSignalHandlers()
        PrivateCopyRegistry.removeStaleCopies()
        // Problems with the user's input are one line on stderr and exit status 2; usage errors keep
        // ArgumentParser's own messages and exit codes.
        // `cdstore --version` is handled here: an ArgumentParser flag on the root command would also be
        // parsed inside subcommands and clash with `model --version NAME`.
        if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
            Output.print("cdstore \(CDStoreCommand.version)")
            exit(0)
}

        do {
            var command = try CDStoreCommand.parseAsRoot()
            try command.run()
        } catch let error as StoreError {
            Output.error(error.description)
            exit(2)
        } catch let error as ArchivedModelReader.Failure {
            Output.error(error.description)
            exit(2)
        } catch let error as CDFetch.PredicateError {
            // The message, then the text with a caret under the problem.
            Output.error(error.description)
            FileHandle.standardError.write(Data(error.caretDiagram.split(separator: "\n").map { "  " + $0 + "\n" }.joined().utf8))
            exit(2)
        } catch let error as PropertyListError {
            Output.error(error.description)
            exit(2)
        } catch {
            CDStoreCommand.exit(withError: error)
}
        exit(0)
    }
}
