import ArgumentParser
import CDArchive
import CDModel
import CDStore
import Foundation

// Problems with the user's input are one line on stderr and exit status 2; usage errors keep
// ArgumentParser's own messages and exit codes.
do {
    var command = try CDStoreCommand.parseAsRoot()
    try command.run()
} catch let error as StoreError {
    Output.error(error.description)
    exit(2)
} catch let error as ArchivedModelReader.Failure {
    Output.error(error.description)
    exit(2)
} catch let error as PropertyListError {
    Output.error(error.description)
    exit(2)
} catch {
    CDStoreCommand.exit(withError: error)
}
